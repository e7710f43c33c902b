// The fp8 conversions the GPU device libraries share. The including tj/types.h has defined
// __device__ and __forceinline__, f8e4m3 / f8e5m2 / f16, toFloat(f16), bitsToFloat,
// floatToBits and roundToNearestEven(float) (its instruction: cvt.rni, v_rndne_f32).
#pragma once

namespace tj {

// fp8 -> float is exact through f16, which holds every fp8 value: e5m2 is f16's top byte;
// e4m3fn's exponent and mantissa, read as f16 fields, are the value times 2^-8.
__device__ __forceinline__ float toFloat(f8e5m2 x) { return toFloat(f16{(unsigned short)(x.bits << 8)}); }
__device__ __forceinline__ float toFloat(f8e4m3 x) {
  if ((x.bits & 0x7f) == 0x7f) return bitsToFloat(0x7fc00000u | (unsigned(x.bits & 0x80) << 24));
  const float magnitude = toFloat(f16{(unsigned short)((x.bits & 0x7f) << 7)}) * 256.0f;
  return (x.bits & 0x80) ? -magnitude : magnitude;
}

// float -> fp8 magnitude code, round to nearest even, for 0 <= a below the overflow bound:
// a is a whole number of steps 2^(e - M) (e its exponent, at least the smallest normal's
// MinExp), which scaling by a power of two and rounding to an integer count exactly.
template <int M, int MinExp>
__device__ __forceinline__ unsigned fp8Magnitude(float a) {
  int e = int(floatToBits(a) >> 23) - 127;
  if (e < MinExp) e = MinExp;
  const float steps = roundToNearestEven(a * bitsToFloat(unsigned(127 - e + M) << 23));
  return (unsigned(e - MinExp) << M) + unsigned(steps);
}

// Round to nearest even. From 448 up e4m3fn saturates to +-448 (as CUDA's satfinite
// conversions do, infinities included); e5m2 overflows to infinity from 61440 (the tie above
// its largest finite 57344). NaN stays NaN.
__device__ __forceinline__ f8e4m3 toF8E4M3(float f) {
  const unsigned u = floatToBits(f), sign = (u >> 24) & 0x80u;
  const float a = bitsToFloat(u & 0x7fffffffu);
  if (a != a) return f8e4m3{(unsigned char)(sign | 0x7fu)};
  return f8e4m3{(unsigned char)(sign | (a >= 448.0f ? 0x7eu : fp8Magnitude<3, -6>(a)))};
}
__device__ __forceinline__ f8e5m2 toF8E5M2(float f) {
  const unsigned u = floatToBits(f), sign = (u >> 24) & 0x80u;
  const float a = bitsToFloat(u & 0x7fffffffu);
  if (a != a) return f8e5m2{(unsigned char)(sign | 0x7eu)};
  return f8e5m2{(unsigned char)(sign | (a >= 61440.0f ? 0x7cu : fp8Magnitude<2, -14>(a)))};
}

}  // namespace tj
