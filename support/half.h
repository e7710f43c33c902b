// Host conversions between float and the 16-bit float formats (round to nearest even), for
// references, tests and input generation.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tilejit {

inline float bf16ToFloat(uint16_t bits) {
  uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t floatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}

inline float f16ToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t u;
  if (exponent == 0x1f) {
    u = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent == 0) {
    float value = std::ldexp(float(mantissa), -24);
    return sign ? -value : value;
  } else {
    u = sign | ((exponent + 112) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t floatToF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  uint32_t absBits = u & 0x7fffffffu;
  if (absBits > 0x7f800000u) return uint16_t(sign | 0x7e00u);
  if (absBits >= 0x477ff000u) return uint16_t(sign | 0x7c00u);
  if (absBits < 0x38800000u) return uint16_t(sign | uint16_t(std::nearbyint(std::fabs(f) * 16777216.0f)));
  uint32_t rounded = absBits + 0xfffu + ((absBits >> 13) & 1u);
  return uint16_t(sign | ((rounded - (112u << 23)) >> 13));
}

}  // namespace tilejit
