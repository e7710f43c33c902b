// Scalar types, views and the kernel entry of the CPU backend. A program runs on one host
// thread; tiles are plain arrays, so every tile operation is an exact loop.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tj/abi.h"

#ifndef TJ_THREADS
#define TJ_THREADS 1
#endif

namespace tj {

// 16-bit float storage types; arithmetic happens in float.
struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};

inline float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline uint32_t floatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float f32_from_bits(uint32_t bits) { return bitsToFloat(bits); }
inline double f64_from_bits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

inline float toFloat(bf16 x) { return bitsToFloat(uint32_t(x.bits) << 16); }
inline bf16 toBF16(float f) {
  uint32_t u = floatToBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16{uint16_t((u >> 16) | 0x40)};  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
  return bf16{uint16_t(u >> 16)};
}

inline float toFloat(f16 x) {
  uint32_t sign = uint32_t(x.bits & 0x8000u) << 16;
  uint32_t exponent = (x.bits >> 10) & 0x1fu;
  uint32_t mantissa = x.bits & 0x3ffu;
  if (exponent == 0x1f) return bitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {  // zero or subnormal: value = mantissa * 2^-24
    float value = std::ldexp(float(mantissa), -24);
    return sign ? -value : value;
  }
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}
inline f16 toF16(float f) {
  uint32_t u = floatToBits(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  uint32_t absBits = u & 0x7fffffffu;
  if (absBits > 0x7f800000u) return f16{uint16_t(sign | 0x7e00u)};
  if (absBits >= 0x477ff000u) return f16{uint16_t(sign | 0x7c00u)};  // rounds to >= 65520: inf
  if (absBits < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    float scaled = std::fabs(f) * 16777216.0f;  // units of 2^-24
    return f16{uint16_t(sign | uint16_t(std::nearbyint(scaled)))};
  }
  uint32_t rounded = absBits + 0xfffu + ((absBits >> 13) & 1u);
  return f16{uint16_t(sign | ((rounded - (112u << 23)) >> 13))};
}

// 8-bit float storage types (OCP FP8). e4m3fn: bias 7, no infinities, NaN = S.1111.111,
// largest finite 448. e5m2: bias 15, IEEE-like (S.11111.00 is infinity, NaNs above it).
struct f8e4m3 {
  uint8_t bits;
};
struct f8e5m2 {
  uint8_t bits;
};

namespace detail {
// An 8-bit float with E exponent and M mantissa bits: exact decode.
template <int E, int M>
inline float fp8ToFloat(uint8_t bits) {
  constexpr int bias = (1 << (E - 1)) - 1;
  const int exponent = (bits >> M) & ((1 << E) - 1), mantissa = bits & ((1 << M) - 1);
  const bool nan = E == 4 ? (bits & 0x7f) == 0x7f : exponent == 31 && mantissa != 0;
  const bool inf = E == 5 && exponent == 31 && mantissa == 0;
  float value = nan   ? std::nanf("")
                : inf ? INFINITY
                : exponent == 0 ? std::ldexp(float(mantissa), 1 - bias - M)
                                : std::ldexp(float((1 << M) | mantissa), exponent - bias - M);
  return (bits & 0x80) ? -value : value;
}

// Round to nearest even. Past the largest finite value e4m3fn saturates to +-448 (as CUDA's
// satfinite conversions do, infinities included); e5m2 overflows to infinity. NaN stays NaN.
template <int E, int M>
inline uint8_t floatToFp8(float f) {
  constexpr int bias = (1 << (E - 1)) - 1;
  constexpr uint32_t maxFinite = E == 4 ? 0x7e : 0x7b;
  const uint32_t u = floatToBits(f), sign = (u >> 24) & 0x80u, absBits = u & 0x7fffffffu;
  if (absBits > 0x7f800000u) return uint8_t(sign | (E == 4 ? 0x7fu : 0x7eu));
  uint32_t code;
  if (absBits < uint32_t(127 + 1 - bias) << 23) {
    // Below the smallest normal: whole multiples of the subnormal step 2^(1 - bias - M);
    // scaling by a power of two is exact and nearbyint rounds half to even.
    code = uint32_t(std::nearbyint(std::fabs(f) * std::ldexp(1.0f, bias - 1 + M)));
  } else {
    constexpr int shift = 23 - M;
    const uint32_t rounded = absBits + ((1u << (shift - 1)) - 1) + ((absBits >> shift) & 1u);
    code = (rounded >> shift) - (uint32_t(127 - bias) << M);
  }
  if (code > maxFinite) code = E == 4 ? maxFinite : 0x7cu;
  return uint8_t(sign | code);
}
}  // namespace detail

inline float toFloat(f8e4m3 x) { return detail::fp8ToFloat<4, 3>(x.bits); }
inline float toFloat(f8e5m2 x) { return detail::fp8ToFloat<5, 2>(x.bits); }
inline f8e4m3 toF8E4M3(float f) { return f8e4m3{detail::floatToFp8<4, 3>(f)}; }
inline f8e5m2 toF8E5M2(float f) { return f8e5m2{detail::floatToFp8<5, 2>(f)}; }

template <typename T>
struct Scalar {
  using type = T;
};

// Converts between every numeric type the emitter names. To fp8 from double goes through
// float (two roundings: the fp8 step is 2^20 float steps or more, so only exact ties of
// float's rounding can differ).
template <typename U, typename T>
inline U cast(T x) {
  if constexpr (std::is_same_v<T, U>) {
    return x;
  } else if constexpr (std::is_same_v<T, bf16> || std::is_same_v<T, f16> ||
                       std::is_same_v<T, f8e4m3> || std::is_same_v<T, f8e5m2>) {
    return cast<U>(toFloat(x));
  } else if constexpr (std::is_same_v<U, bf16>) {
    return toBF16(static_cast<float>(x));
  } else if constexpr (std::is_same_v<U, f16>) {
    return toF16(static_cast<float>(x));
  } else if constexpr (std::is_same_v<U, f8e4m3>) {
    return toF8E4M3(static_cast<float>(x));
  } else if constexpr (std::is_same_v<U, f8e5m2>) {
    return toF8E5M2(static_cast<float>(x));
  } else {
    return static_cast<U>(x);
  }
}

namespace detail {
struct ProgramContext {
  const int64_t* programId;
  const int64_t* numPrograms;
};
inline thread_local ProgramContext currentProgram;
}  // namespace detail

template <int A>
inline int64_t program_id() {
  return detail::currentProgram.programId[A];
}
// Programs of one kernel all finish before the next kernel starts: nothing to wait for.
inline void wait_previous_kernel() {}
inline void start_next_kernel() {}

template <int A>
inline int64_t num_programs() {
  return detail::currentProgram.numPrograms[A];
}

}  // namespace tj

#define TJ_KERNEL_ENTRY(name, Args)                                                      \
  static void name##_body(const Args& args);                                             \
  extern "C" void name(const void* rawArgs, const int64_t* programId,                    \
                       const int64_t* numPrograms) {                                     \
    tj::detail::currentProgram = tj::detail::ProgramContext{programId, numPrograms};     \
    name##_body(*static_cast<const Args*>(rawArgs));                                     \
  }                                                                                      \
  static void name##_body(const Args& args)
