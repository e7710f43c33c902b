// The CPU device library's fp8 conversions (templates/device/cpu/tj/types.h): every code to
// float against the OCP FP8 definition, and float to fp8 at every rounding boundary.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "templates/device/cpu/tj/types.h"

namespace {

// The OCP definition, in double: (-1)^s 2^(e - bias) (1 + m / 2^M), subnormals at e = 0.
struct Format {
  int exponentBits, mantissaBits;
  bool hasInfinity;  // e5m2; e4m3fn has none and one NaN per sign (S.1111.111)
};
constexpr Format kE4M3{4, 3, false};
constexpr Format kE5M2{5, 2, true};

double reference(Format format, int code) {
  const int bias = (1 << (format.exponentBits - 1)) - 1, top = (1 << format.exponentBits) - 1;
  const int e = (code >> format.mantissaBits) & top, m = code & ((1 << format.mantissaBits) - 1);
  const double sign = (code & 0x80) ? -1.0 : 1.0;
  if (format.hasInfinity && e == top)
    return m == 0 ? sign * std::numeric_limits<double>::infinity() : std::nan("");
  if (!format.hasInfinity && e == top && m == (1 << format.mantissaBits) - 1) return std::nan("");
  const double fraction = double(m) / (1 << format.mantissaBits);
  return sign * (e == 0 ? std::ldexp(fraction, 1 - bias) : std::ldexp(1.0 + fraction, e - bias));
}

template <typename F8>
float decode(int code) {
  return tj::cast<float>(F8{uint8_t(code)});
}
template <typename F8>
int encode(float value) {
  return tj::cast<F8>(value).bits;
}

template <typename F8>
void expectAllCodesDecode(Format format) {
  for (int code = 0; code < 256; ++code) {
    double want = reference(format, code);
    float got = decode<F8>(code);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << "code " << code;
      continue;
    }
    EXPECT_EQ(double(got), want) << "code " << code;
    EXPECT_EQ(std::signbit(got), bool(code & 0x80)) << "code " << code;
  }
}

TEST(Fp8Cpu, EveryE4M3CodeDecodes) {
  expectAllCodesDecode<tj::f8e4m3>(kE4M3);
  EXPECT_EQ(decode<tj::f8e4m3>(0x7e), 448.0f);
  EXPECT_EQ(decode<tj::f8e4m3>(0x38), 1.0f);
  EXPECT_EQ(decode<tj::f8e4m3>(0x01), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(decode<tj::f8e4m3>(0x7f)) && std::isnan(decode<tj::f8e4m3>(0xff)));
}

TEST(Fp8Cpu, EveryE5M2CodeDecodes) {
  expectAllCodesDecode<tj::f8e5m2>(kE5M2);
  EXPECT_EQ(decode<tj::f8e5m2>(0x7b), 57344.0f);
  EXPECT_EQ(decode<tj::f8e5m2>(0x3c), 1.0f);
  EXPECT_EQ(decode<tj::f8e5m2>(0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(decode<tj::f8e5m2>(0x7c), INFINITY);
  EXPECT_EQ(decode<tj::f8e5m2>(0xfc), -INFINITY);
}

// Every finite code survives the round trip; between neighbours the midpoint goes to the
// even code, a float step either side to the nearer one.
template <typename F8>
void expectRoundsToNearestEven(int largestFinite) {
  for (int sign : {0, 0x80})
    for (int code = 0; code <= largestFinite; ++code) {
      const float value = decode<F8>(sign | code);
      EXPECT_EQ(encode<F8>(value), sign | code) << "code " << code;
      if (code == largestFinite) break;
      const float next = decode<F8>(sign | (code + 1));
      const float mid = float((double(value) + double(next)) / 2);  // exact in float
      ASSERT_EQ(double(mid), (double(value) + double(next)) / 2);
      EXPECT_EQ(encode<F8>(mid), sign | (code % 2 == 0 ? code : code + 1)) << "mid above " << code;
      EXPECT_EQ(encode<F8>(std::nextafter(mid, value)), sign | code) << "below mid " << code;
      EXPECT_EQ(encode<F8>(std::nextafter(mid, next)), sign | (code + 1)) << "above mid " << code;
    }
}

TEST(Fp8Cpu, E4M3RoundsToNearestEven) { expectRoundsToNearestEven<tj::f8e4m3>(0x7e); }
TEST(Fp8Cpu, E5M2RoundsToNearestEven) { expectRoundsToNearestEven<tj::f8e5m2>(0x7b); }

// e4m3fn saturates (no infinity to round to); NaN stays NaN.
TEST(Fp8Cpu, E4M3SaturatesPastTheLargestFinite) {
  for (float value : {448.0f, 464.0f, 479.9f, 480.0f, 1e9f, INFINITY}) {
    EXPECT_EQ(encode<tj::f8e4m3>(value), 0x7e) << value;
    EXPECT_EQ(encode<tj::f8e4m3>(-value), 0xfe) << value;
  }
  EXPECT_EQ(encode<tj::f8e4m3>(std::nanf("")) & 0x7f, 0x7f);
}

// e5m2 is IEEE-like: the tie above 57344 (61440) and everything past it is infinity.
TEST(Fp8Cpu, E5M2OverflowsToInfinity) {
  EXPECT_EQ(encode<tj::f8e5m2>(std::nextafter(61440.0f, 0.0f)), 0x7b);
  for (float value : {61440.0f, 65536.0f, 1e9f, INFINITY}) {
    EXPECT_EQ(encode<tj::f8e5m2>(value), 0x7c) << value;
    EXPECT_EQ(encode<tj::f8e5m2>(-value), 0xfc) << value;
  }
  EXPECT_TRUE(std::isnan(decode<tj::f8e5m2>(encode<tj::f8e5m2>(std::nanf("")))));
}

// Below half the smallest subnormal everything is (signed) zero; the half itself ties to 0.
TEST(Fp8Cpu, Underflow) {
  EXPECT_EQ(encode<tj::f8e4m3>(std::ldexp(1.0f, -10)), 0x00);
  EXPECT_EQ(encode<tj::f8e4m3>(std::nextafter(std::ldexp(1.0f, -10), 1.0f)), 0x01);
  EXPECT_EQ(encode<tj::f8e4m3>(-1e-30f), 0x80);
  EXPECT_EQ(encode<tj::f8e5m2>(std::ldexp(1.0f, -17)), 0x00);
  EXPECT_EQ(encode<tj::f8e5m2>(std::ldexp(3.0f, -17)), 0x02);  // 1.5 steps: to the even 2
  EXPECT_EQ(encode<tj::f8e5m2>(std::numeric_limits<float>::denorm_min()), 0x00);
  // double in: through float.
  EXPECT_EQ(tj::cast<tj::f8e4m3>(448.0).bits, 0x7e);
  EXPECT_EQ(tj::cast<double>(tj::f8e5m2{0x3c}), 1.0);
}

}  // namespace
