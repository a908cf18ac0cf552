// Arithmetic expressions on the GPU (`_ArithmeticGenericOp`): one kernel interprets the
// expression's program for every output element.
//
// The host (dali/ops/math/_arithmetic_gpu.py) turns the expression tree, with the types the CPU
// path worked out, into a register program that computes what the CPU's `_eval` computes:
// every leaf is loaded in its own type, every operand converted to the type its operation works
// in (CONVERT: C++'s conversions, which are NumPy's `astype` for the widenings, integer
// truncations and integer -> float roundings the type rules produce), and every operation
// computed in that type as NumPy does: integers wrap (done in unsigned arithmetic, so there is
// no undefined overflow), integer `//` and `%` truncate (a zero divisor flags the sample in
// `errors`, MIN / -1 wraps), integer `**` with a negative exponent is 0, shifts mask their count
// to the width, float min/max/clamp are C's comparisons, float math calls the float or double
// function of the C library.
//
// Registers hold 64 bits: integers sign- or zero-extended, bool as 0/1, float and double as
// their bits.  An instruction is 6 ints: opcode, type (what the operation computes in; for
// CONVERT the target), destination register and up to three operands (registers; for LOAD the
// input, for CONST the constant, for CONVERT the source register then its type).
//
// Samples are blockIdx.y, a grid-stride loop over x covers each one's elements.  An input of a
// sample is read flat (element k of the output reads its element k), as one value, or strided
// (NumPy broadcasting: stride 0 along broadcast axes) through the output element's coordinates.

#define ARITH_DIMS 8               // axes of an output sample
#define ARITH_REGS 16              // registers of a program
#define ARITH_INSTR 6              // ints of an instruction
#define ARITH_OUT_FIELDS (2 + ARITH_DIMS)      // byte offset, volume, extents
#define ARITH_IN_FIELDS (2 + ARITH_DIMS)       // byte offset, mode, byte strides

// type codes
enum {
  AT_BOOL, AT_I8, AT_U8, AT_I16, AT_U16, AT_I32, AT_U32, AT_I64, AT_U64, AT_F32, AT_F64,
  AT_U64_I64,                      // comparison of a uint64 (left) with an int64 (right)
  AT_I64_U64                       // comparison of an int64 (left) with a uint64 (right)
};

// opcodes
enum {
  AO_LOAD, AO_CONST, AO_CONVERT,
  AO_ADD, AO_SUB, AO_MUL, AO_DIV, AO_MOD, AO_POW, AO_MIN, AO_MAX, AO_CLAMP,
  AO_BITAND, AO_BITOR, AO_BITXOR, AO_LSHIFT, AO_RSHIFT,
  AO_EQ, AO_NEQ, AO_LT, AO_LEQ, AO_GT, AO_GEQ,
  AO_MINUS, AO_PLUS, AO_ABS, AO_BITNOT, AO_ATAN2,
  AO_SQRT, AO_RSQRT, AO_CBRT, AO_EXP, AO_LOG, AO_LOG2, AO_LOG10, AO_FABS, AO_FLOOR, AO_CEIL,
  AO_SIN, AO_COS, AO_TAN, AO_ASIN, AO_ACOS, AO_ATAN, AO_SINH, AO_COSH, AO_TANH, AO_ASINH,
  AO_ACOSH, AO_ATANH
};

enum { AI_FLAT, AI_SCALAR, AI_STRIDED };      // how an input of a sample is read

typedef unsigned long long arith_reg;

// the unsigned type integer T computes in (C++ would promote narrow types to int)
template <typename T>
struct arith_wide {
  typedef unsigned type;
};
template <>
struct arith_wide<long long> {
  typedef unsigned long long type;
};
template <>
struct arith_wide<unsigned long long> {
  typedef unsigned long long type;
};

template <typename T>
__device__ __forceinline__ T arith_get(arith_reg r) { return (T)r; }
template <>
__device__ __forceinline__ float arith_get<float>(arith_reg r) {
  return __uint_as_float((unsigned)r);
}
template <>
__device__ __forceinline__ double arith_get<double>(arith_reg r) {
  return __longlong_as_double((long long)r);
}

template <typename T>
__device__ __forceinline__ arith_reg arith_put(T v) { return (arith_reg)v; }
template <>
__device__ __forceinline__ arith_reg arith_put<float>(float v) { return __float_as_uint(v); }
template <>
__device__ __forceinline__ arith_reg arith_put<double>(double v) {
  return (arith_reg)__double_as_longlong(v);
}

// ---- conversions ---------------------------------------------------------------------------
template <typename D, typename S>
__device__ __forceinline__ arith_reg arith_to(S v) {
  return arith_put<D>((D)v);
}

template <typename S>
__device__ __forceinline__ arith_reg arith_convert_from(S v, int to) {
  switch (to) {
    case AT_BOOL: return v != (S)0;
    case AT_I8: return arith_to<signed char>(v);
    case AT_U8: return arith_to<unsigned char>(v);
    case AT_I16: return arith_to<short>(v);
    case AT_U16: return arith_to<unsigned short>(v);
    case AT_I32: return arith_to<int>(v);
    case AT_U32: return arith_to<unsigned>(v);
    case AT_I64: return arith_to<long long>(v);
    case AT_U64: return arith_to<unsigned long long>(v);
    case AT_F32: return arith_to<float>(v);
    default: return arith_to<double>(v);
  }
}

// the host converts floats to floats only (the type rules never narrow a float to an integer)
__device__ __forceinline__ arith_reg arith_convert(arith_reg r, int from, int to) {
  switch (from) {
    case AT_BOOL: case AT_U8: return arith_convert_from(arith_get<unsigned char>(r), to);
    case AT_I8: return arith_convert_from(arith_get<signed char>(r), to);
    case AT_I16: return arith_convert_from(arith_get<short>(r), to);
    case AT_U16: return arith_convert_from(arith_get<unsigned short>(r), to);
    case AT_I32: return arith_convert_from(arith_get<int>(r), to);
    case AT_U32: return arith_convert_from(arith_get<unsigned>(r), to);
    case AT_I64: return arith_convert_from(arith_get<long long>(r), to);
    case AT_U64: return arith_convert_from(arith_get<unsigned long long>(r), to);
    case AT_F32: return arith_convert_from(arith_get<float>(r), to);
    default: return arith_convert_from(arith_get<double>(r), to);
  }
}

// ---- integer operations --------------------------------------------------------------------
template <typename T>
__device__ __forceinline__ T arith_ipow(T x, T e) {
  typedef typename arith_wide<T>::type U;
  if (e < (T)0) return (T)0;       // (a no-op comparison for unsigned T)
  U base = (U)x, r = 1;
  unsigned long long n = (unsigned long long)e;
  while (n) {
    if (n & 1ull) r *= base;
    base *= base;
    n >>= 1;
  }
  return (T)r;
}

template <typename T>
__device__ __forceinline__ arith_reg arith_int(int op, T a, T b, T c, bool is_bool, int* error) {
  typedef typename arith_wide<T>::type U;
  const bool is_signed = (T)-1 < (T)0;
  switch (op) {
    case AO_ADD: return arith_put((T)((U)a + (U)b));
    case AO_SUB: return arith_put((T)((U)a - (U)b));
    case AO_MUL: return arith_put((T)((U)a * (U)b));
    case AO_DIV:
    case AO_MOD:
      if (b == (T)0) {
        *error = 1;
        return 0;
      }
      if (is_signed && b == (T)-1)            // MIN / -1 wraps to MIN, its remainder is 0
        return op == AO_DIV ? arith_put((T)((U)0 - (U)a)) : 0;
      return arith_put(op == AO_DIV ? (T)(a / b) : (T)(a % b));
    case AO_POW: return arith_put(arith_ipow(a, b));
    case AO_MIN: return arith_put(a < b ? a : b);
    case AO_MAX: return arith_put(a > b ? a : b);
    case AO_CLAMP: {
      const T low = a > b ? a : b;
      return arith_put(low < c ? low : c);
    }
    case AO_BITAND: return arith_put((T)(a & b));
    case AO_BITOR: return arith_put((T)(a | b));
    case AO_BITXOR: return arith_put((T)(a ^ b));
    case AO_LSHIFT: return arith_put((T)((U)a << (int)(b & (T)(sizeof(T) * 8 - 1))));
    case AO_RSHIFT: return arith_put((T)(a >> (int)(b & (T)(sizeof(T) * 8 - 1))));
    case AO_EQ: return a == b;
    case AO_NEQ: return a != b;
    case AO_LT: return a < b;
    case AO_LEQ: return a <= b;
    case AO_GT: return a > b;
    case AO_GEQ: return a >= b;
    case AO_MINUS: return arith_put((T)((U)0 - (U)a));
    case AO_PLUS: return arith_put(a);
    case AO_ABS: return arith_put(a < (T)0 ? (T)((U)0 - (U)a) : a);
    default:   // AO_BITNOT: logical for bool
      return is_bool ? (arith_reg)(a == (T)0) : arith_put((T)~a);
  }
}

// an exact comparison of a uint64 `u` with an int64 `s`, `unsigned_left` telling the order
__device__ __forceinline__ arith_reg arith_compare_mixed(int op, unsigned long long u, long long s,
                                                         bool unsigned_left) {
  // a negative s is below every u; otherwise both are compared as uint64
  const unsigned long long a = unsigned_left ? u : (unsigned long long)s;
  const unsigned long long b = unsigned_left ? (unsigned long long)s : u;
  const bool neg = s < 0;
  switch (op) {
    case AO_EQ: return !neg && a == b;
    case AO_NEQ: return neg || a != b;
    case AO_LT: return neg ? !unsigned_left : a < b;
    case AO_LEQ: return neg ? !unsigned_left : a <= b;
    case AO_GT: return neg ? unsigned_left : a > b;
    default: return neg ? unsigned_left : a >= b;     // AO_GEQ
  }
}

// ---- floating-point operations -------------------------------------------------------------
#define ARITH_MATH(F, SUFFIX)                                                             \
  __device__ __forceinline__ F arith_math(int op, F x) {                                  \
    switch (op) {                                                                         \
      case AO_SQRT: return sqrt##SUFFIX(x);                                               \
      case AO_RSQRT: return (F)1 / sqrt##SUFFIX(x);                                       \
      case AO_CBRT: return cbrt##SUFFIX(x);                                               \
      case AO_EXP: return exp##SUFFIX(x);                                                 \
      case AO_LOG: return log##SUFFIX(x);                                                 \
      case AO_LOG2: return log2##SUFFIX(x);                                               \
      case AO_LOG10: return log10##SUFFIX(x);                                             \
      case AO_FABS: return fabs##SUFFIX(x);                                               \
      case AO_FLOOR: return floor##SUFFIX(x);                                             \
      case AO_CEIL: return ceil##SUFFIX(x);                                               \
      case AO_SIN: return sin##SUFFIX(x);                                                 \
      case AO_COS: return cos##SUFFIX(x);                                                 \
      case AO_TAN: return tan##SUFFIX(x);                                                 \
      case AO_ASIN: return asin##SUFFIX(x);                                               \
      case AO_ACOS: return acos##SUFFIX(x);                                               \
      case AO_ATAN: return atan##SUFFIX(x);                                               \
      case AO_SINH: return sinh##SUFFIX(x);                                               \
      case AO_COSH: return cosh##SUFFIX(x);                                               \
      case AO_TANH: return tanh##SUFFIX(x);                                               \
      case AO_ASINH: return asinh##SUFFIX(x);                                             \
      case AO_ACOSH: return acosh##SUFFIX(x);                                             \
      default: return atanh##SUFFIX(x);                                                   \
    }                                                                                     \
  }                                                                                       \
  __device__ __forceinline__ F arith_binary_math(int op, F a, F b) {                      \
    switch (op) {                                                                         \
      case AO_MOD: return fmod##SUFFIX(a, b);                                             \
      case AO_POW: return pow##SUFFIX(a, b);                                              \
      default: return atan2##SUFFIX(a, b);                                                \
    }                                                                                     \
  }

ARITH_MATH(float, f)
ARITH_MATH(double, )

template <typename F>
__device__ __forceinline__ arith_reg arith_float(int op, F a, F b, F c) {
  switch (op) {
    case AO_ADD: return arith_put((F)(a + b));
    case AO_SUB: return arith_put((F)(a - b));
    case AO_MUL: return arith_put((F)(a * b));
    case AO_DIV: return arith_put((F)(a / b));
    case AO_MOD: case AO_POW: case AO_ATAN2: return arith_put(arith_binary_math(op, a, b));
    case AO_MIN: return arith_put(a < b ? a : b);
    case AO_MAX: return arith_put(a > b ? a : b);
    case AO_CLAMP: {
      const F low = a < b ? b : a;
      return arith_put(c < low ? c : low);
    }
    case AO_EQ: return a == b;
    case AO_NEQ: return a != b;
    case AO_LT: return a < b;
    case AO_LEQ: return a <= b;
    case AO_GT: return a > b;
    case AO_GEQ: return a >= b;
    case AO_MINUS: return arith_put((F)-a);
    case AO_PLUS: return arith_put(a);
    case AO_ABS: return arith_put(arith_math(AO_FABS, a));
    default: return arith_put(arith_math(op, a));
  }
}

template <typename T>
__device__ __forceinline__ arith_reg arith_typed(int op, int type, arith_reg a, arith_reg b,
                                                 arith_reg c, int* error) {
  return arith_int(op, arith_get<T>(a), arith_get<T>(b), arith_get<T>(c), type == AT_BOOL,
                   error);
}

__device__ __forceinline__ arith_reg arith_compute(int op, int type, arith_reg a, arith_reg b,
                                                   arith_reg c, int* error) {
  switch (type) {
    case AT_BOOL: case AT_U8: return arith_typed<unsigned char>(op, type, a, b, c, error);
    case AT_I8: return arith_typed<signed char>(op, type, a, b, c, error);
    case AT_I16: return arith_typed<short>(op, type, a, b, c, error);
    case AT_U16: return arith_typed<unsigned short>(op, type, a, b, c, error);
    case AT_I32: return arith_typed<int>(op, type, a, b, c, error);
    case AT_U32: return arith_typed<unsigned>(op, type, a, b, c, error);
    case AT_I64: return arith_typed<long long>(op, type, a, b, c, error);
    case AT_U64: return arith_typed<unsigned long long>(op, type, a, b, c, error);
    case AT_F32:
      return arith_float(op, arith_get<float>(a), arith_get<float>(b), arith_get<float>(c));
    case AT_F64:
      return arith_float(op, arith_get<double>(a), arith_get<double>(b), arith_get<double>(c));
    case AT_U64_I64: return arith_compare_mixed(op, a, (long long)b, true);
    default: return arith_compare_mixed(op, b, (long long)a, false);   // AT_I64_U64
  }
}

__device__ __forceinline__ arith_reg arith_load(const unsigned char* p, int type) {
  switch (type) {
    case AT_BOOL: case AT_U8: return *p;
    case AT_I8: return arith_put(*(const signed char*)p);
    case AT_I16: return arith_put(*(const short*)p);
    case AT_U16: return arith_put(*(const unsigned short*)p);
    case AT_I32: return arith_put(*(const int*)p);
    case AT_U32: return arith_put(*(const unsigned*)p);
    case AT_I64: case AT_U64: case AT_F64: return *(const arith_reg*)p;
    default: return *(const unsigned*)p;                // AT_F32
  }
}

__device__ __forceinline__ void arith_store(unsigned char* p, int type, arith_reg r) {
  switch (type) {
    case AT_BOOL: case AT_I8: case AT_U8: *p = (unsigned char)r; break;
    case AT_I16: case AT_U16: *(unsigned short*)p = (unsigned short)r; break;
    case AT_I32: case AT_U32: case AT_F32: *(unsigned*)p = (unsigned)r; break;
    default: *(arith_reg*)p = r;
  }
}

// program: n_instr instructions; consts: the constants' register values; inputs: each input
// batch's base address; in_desc: (samples, n_inputs, ARITH_IN_FIELDS); out_desc: (samples,
// ARITH_OUT_FIELDS); the result register of the program is `result`, stored as `out_type`;
// errors: one int per sample, set to 1 by an integer division by zero.
extern "C" __global__ void arith_program(
    const int* __restrict__ program, int n_instr, const arith_reg* __restrict__ consts,
    const unsigned long long* __restrict__ inputs, const long long* __restrict__ in_desc,
    int n_inputs, unsigned char* __restrict__ out, const long long* __restrict__ out_desc,
    int ndim, int n_samples, int result, int out_type, int out_size, int* __restrict__ errors) {
  const int s = blockIdx.y;
  if (s >= n_samples) return;
  const long long* od = out_desc + (long long)s * ARITH_OUT_FIELDS;
  const long long* id = in_desc + (long long)s * n_inputs * ARITH_IN_FIELDS;
  const long long volume = od[1];
  const long long step = (long long)gridDim.x * blockDim.x;
  int error = 0;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < volume; k += step) {
    arith_reg reg[ARITH_REGS];
    long long coord[ARITH_DIMS];
    bool have_coord = false;
    for (int i = 0; i < n_instr; i++) {
      const int* ins = program + i * ARITH_INSTR;
      const int op = ins[0], type = ins[1], dst = ins[2];
      if (op == AO_LOAD) {
        const long long* in = id + ins[3] * ARITH_IN_FIELDS;
        long long offset = in[0];
        if (in[1] == AI_FLAT) {
          offset += k * in[2];
        } else if (in[1] == AI_STRIDED) {
          if (!have_coord) {
            long long rest = k;
            for (int d = ndim - 1; d >= 0; d--) {
              const long long q = rest / od[2 + d];
              coord[d] = rest - q * od[2 + d];
              rest = q;
            }
            have_coord = true;
          }
          for (int d = 0; d < ndim; d++) offset += coord[d] * in[2 + d];
        }
        reg[dst] = arith_load((const unsigned char*)inputs[ins[3]] + offset, type);
      } else if (op == AO_CONST) {
        reg[dst] = consts[ins[3]];
      } else if (op == AO_CONVERT) {
        reg[dst] = arith_convert(reg[ins[3]], ins[4], type);
      } else {
        reg[dst] = arith_compute(op, type, reg[ins[3]], reg[ins[4]], reg[ins[5]], &error);
      }
    }
    arith_store(out + od[0] + k * out_size, out_type, reg[result]);
  }
  if (error) errors[s] = 1;
}
