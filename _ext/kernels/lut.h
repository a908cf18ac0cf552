// The loops of fn.lookup_table: out[i] = table[in[i]] with a default for keys outside it.
//
// Only the output's element size matters (the table is already in the output type), so the
// outputs are handled as unsigned integers of 1, 2, 4 or 8 bytes.  For 8- and 16-bit inputs
// the table covers every value of the input type, starting at the type's minimum (`lo`), and
// the lookup has no bounds check; for wider inputs it covers [0, size) and anything else gets
// the default.
#ifndef DALI_LUT_H_
#define DALI_LUT_H_

#include <stdint.h>
#include <string.h>

typedef void (*dali_lut_loop)(const void* src, void* dst, int64_t n, const void* table,
                              int64_t lo, int64_t size, const void* dflt);

template <typename In, typename Out>
static void dali_lut_typed(const void* src, void* dst, int64_t n, const void* table, int64_t lo,
                           int64_t size, const void* dflt) {
  const In* s = static_cast<const In*>(src);
  Out* d = static_cast<Out*>(dst);
  const Out* t = static_cast<const Out*>(table);
  if (sizeof(In) <= 2) {
    const Out* base = t - lo;
    int64_t i = 0;
    if (sizeof(In) == 1 && sizeof(Out) == 1) {
      // 8 lookups packed into one 8-byte store: byte stores are the bottleneck otherwise
      for (; i + 8 <= n; i += 8) {
        uint64_t packed = 0;
        for (int k = 0; k < 8; k++)
          packed |= static_cast<uint64_t>(base[static_cast<int64_t>(s[i + k])]) << (8 * k);
        memcpy(d + i, &packed, 8);
      }
    }
    for (; i < n; i++)
      d[i] = base[static_cast<int64_t>(s[i])];
    return;
  }
  const Out def = *static_cast<const Out*>(dflt);
  const uint64_t limit = static_cast<uint64_t>(size);
  for (int64_t i = 0; i < n; i++) {
    const In v = s[i];
    d[i] = (v >= 0 && static_cast<uint64_t>(v) < limit) ? t[static_cast<uint64_t>(v)] : def;
  }
}

template <typename In>
static dali_lut_loop dali_lut_for_output(int out_size) {
  switch (out_size) {
    case 1: return dali_lut_typed<In, uint8_t>;
    case 2: return dali_lut_typed<In, uint16_t>;
    case 4: return dali_lut_typed<In, uint32_t>;
    case 8: return dali_lut_typed<In, uint64_t>;
    default: return nullptr;
  }
}

// The loop for input type `in_code` (0..7: int8, uint8, int16, uint16, int32, uint32, int64,
// uint64) and an output of `out_size` bytes; NULL for anything else.
static dali_lut_loop dali_lut_fn(int in_code, int out_size) {
  switch (in_code) {
    case 0: return dali_lut_for_output<int8_t>(out_size);
    case 1: return dali_lut_for_output<uint8_t>(out_size);
    case 2: return dali_lut_for_output<int16_t>(out_size);
    case 3: return dali_lut_for_output<uint16_t>(out_size);
    case 4: return dali_lut_for_output<int32_t>(out_size);
    case 5: return dali_lut_for_output<uint32_t>(out_size);
    case 6: return dali_lut_for_output<int64_t>(out_size);
    case 7: return dali_lut_for_output<uint64_t>(out_size);
    default: return nullptr;
  }
}

#endif  // DALI_LUT_H_
