// Operands of the arithmetic program runner (`arith.pyx` run_samples) loaded into a chunk of
// the program's type: element k of a sample reads the operand's element k % period (period 1:
// one value broadcast; the sample's size: elementwise; else an inner pattern such as one value
// per channel), converted as C++ converts (what NumPy's astype does for the widening
// conversions the runner accepts).
#pragma once
#include <cstdint>

namespace arith_load {

template <class S, class D>
static void load_t(const char* src, int64_t period, int64_t start, int64_t n, char* dst) {
    const S* s = reinterpret_cast<const S*>(src);
    D* d = reinterpret_cast<D*>(dst);
    if (period == 1) {
        const D v = static_cast<D>(s[0]);
        for (int64_t j = 0; j < n; j++) d[j] = v;
    } else if (start + n <= period) {
        s += start;
        for (int64_t j = 0; j < n; j++) d[j] = static_cast<D>(s[j]);
    } else {
        int64_t k = start % period;
        for (int64_t j = 0; j < n; j++) {
            d[j] = static_cast<D>(s[k]);
            if (++k == period) k = 0;
        }
    }
}

// NumPy type numbers (NPY_BOOL ... NPY_DOUBLE on LP64) of the supported types.
template <class S>
static bool load_to(int dst, const char* src, int64_t period, int64_t start, int64_t n,
                    char* out) {
    switch (dst) {
        case 0: load_t<S, bool>(src, period, start, n, out); return true;
        case 1: load_t<S, int8_t>(src, period, start, n, out); return true;
        case 2: load_t<S, uint8_t>(src, period, start, n, out); return true;
        case 3: load_t<S, int16_t>(src, period, start, n, out); return true;
        case 4: load_t<S, uint16_t>(src, period, start, n, out); return true;
        case 5: load_t<S, int32_t>(src, period, start, n, out); return true;
        case 6: load_t<S, uint32_t>(src, period, start, n, out); return true;
        case 7: case 9: load_t<S, int64_t>(src, period, start, n, out); return true;
        case 8: case 10: load_t<S, uint64_t>(src, period, start, n, out); return true;
        case 11: load_t<S, float>(src, period, start, n, out); return true;
        case 12: load_t<S, double>(src, period, start, n, out); return true;
        default: return false;
    }
}

// Load n elements from `start` of a sample's operand of type `src_num` as type `dst_num`;
// false for a type it does not handle.
static inline bool load(int src_num, int dst_num, const char* src, int64_t period,
                        int64_t start, int64_t n, char* out) {
    switch (src_num) {
        case 0: return load_to<bool>(dst_num, src, period, start, n, out);
        case 1: return load_to<int8_t>(dst_num, src, period, start, n, out);
        case 2: return load_to<uint8_t>(dst_num, src, period, start, n, out);
        case 3: return load_to<int16_t>(dst_num, src, period, start, n, out);
        case 4: return load_to<uint16_t>(dst_num, src, period, start, n, out);
        case 5: return load_to<int32_t>(dst_num, src, period, start, n, out);
        case 6: return load_to<uint32_t>(dst_num, src, period, start, n, out);
        case 7: case 9: return load_to<int64_t>(dst_num, src, period, start, n, out);
        case 8: case 10: return load_to<uint64_t>(dst_num, src, period, start, n, out);
        case 11: return load_to<float>(dst_num, src, period, start, n, out);
        case 12: return load_to<double>(dst_num, src, period, start, n, out);
        default: return false;
    }
}

}  // namespace arith_load
