// Foreground pixels of masks (fn.segmentation.random_mask_pixel): counting them and finding the
// k-th one in memory order.  A pixel is foreground when it equals `value` (by_value) or exceeds
// `threshold`.
#ifndef DALI_MASK_H_
#define DALI_MASK_H_

#include <stdint.h>

#include <math.h>
#include <type_traits>

// Integers of up to 32 bits are compared as int64 (x > threshold <=> x > floor(threshold);
// x == value only for an integral value), everything else as double.
template <typename T>
struct dali_mask_test {
  static constexpr bool kInt = std::is_integral<T>::value && sizeof(T) <= 4;
  bool by_value;
  double value, threshold;
  int64_t ivalue, ithreshold;
  bool never;                       // a fractional value no integer equals

  dali_mask_test(bool by_value, double value, double threshold)
      : by_value(by_value), value(value), threshold(threshold), ivalue(0), ithreshold(0),
        never(false) {
    if (kInt) {
      const double lim = 1e15;
      const double f = floor(threshold);
      ithreshold = static_cast<int64_t>(f < -lim ? -lim : (f > lim ? lim : f));
      never = by_value && (floor(value) != value || value < -lim || value > lim);
      ivalue = never ? 0 : static_cast<int64_t>(value);
    }
  }

  inline bool operator()(T v) const {
    if (kInt) {
      const int64_t x = static_cast<int64_t>(v);
      return by_value ? (!never && x == ivalue) : x > ithreshold;
    }
    const double d = static_cast<double>(v);
    return by_value ? d == value : d > threshold;
  }
};

// Returns the number of foreground elements among n; with k >= 0 stops at the k-th (0-based)
// and stores its index in *found.
template <typename T>
static int64_t dali_mask_scan(const void* data, int64_t n, bool by_value, double value,
                              double threshold, int64_t k, int64_t* found) {
  const T* p = static_cast<const T*>(data);
  const dali_mask_test<T> fg(by_value, value, threshold);
  int64_t count = 0;
  if (k < 0) {
    for (int64_t i = 0; i < n; i++) count += fg(p[i]);
    return count;
  }
  // whole blocks are counted (a loop without branches) until the one holding the k-th
  const int64_t kBlock = 1024;
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    int64_t c = 0;
    for (int64_t j = i; j < i + kBlock; j++) c += fg(p[j]);
    if (count + c > k) break;
    count += c;
  }
  for (; i < n; i++) {
    if (fg(p[i])) {
      if (count == k) {
        *found = i;
        return count + 1;
      }
      count++;
    }
  }
  return count;
}

typedef int64_t (*dali_mask_scan_fn)(const void* data, int64_t n, bool by_value, double value,
                                     double threshold, int64_t k, int64_t* found);

// The scan for type code `code` (0..10: bool, int8, uint8, int16, uint16, int32, uint32, int64,
// uint64, float, double), NULL for anything else.
static dali_mask_scan_fn dali_mask_scan_for(int code) {
  switch (code) {
    case 0: return dali_mask_scan<bool>;
    case 1: return dali_mask_scan<int8_t>;
    case 2: return dali_mask_scan<uint8_t>;
    case 3: return dali_mask_scan<int16_t>;
    case 4: return dali_mask_scan<uint16_t>;
    case 5: return dali_mask_scan<int32_t>;
    case 6: return dali_mask_scan<uint32_t>;
    case 7: return dali_mask_scan<int64_t>;
    case 8: return dali_mask_scan<uint64_t>;
    case 9: return dali_mask_scan<float>;
    case 10: return dali_mask_scan<double>;
    default: return nullptr;
  }
}

#endif  // DALI_MASK_H_
