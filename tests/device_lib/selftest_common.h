// Host helpers of the CUDA device-library self-test (shared by its translation units).
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>
#include <cuda_runtime.h>

#define CHECK_CUDA(x)                                                                     \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(2);                                                                       \
    }                                                                                     \
  } while (0)

namespace selftest {

inline float bf16ToFloat(uint16_t b) { uint32_t u = uint32_t(b) << 16; float f; std::memcpy(&f, &u, 4); return f; }
inline uint16_t floatToBf16(float f) {
  uint32_t u; std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}
inline float f16ToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16, ex = (h >> 10) & 0x1f, m = h & 0x3ff;
  float f;
  if (ex == 0x1f) { uint32_t u = sign | 0x7f800000u | (m << 13); std::memcpy(&f, &u, 4); return f; }
  if (ex == 0) { f = std::ldexp(float(m), -24); return sign ? -f : f; }
  uint32_t u = sign | ((ex + 112) << 23) | (m << 13); std::memcpy(&f, &u, 4); return f;
}
inline uint16_t floatToF16(float f) {
  uint32_t u; std::memcpy(&u, &f, 4);
  uint16_t sign = uint16_t((u >> 16) & 0x8000u); uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return uint16_t(sign | 0x7e00u);
  if (a >= 0x477ff000u) return uint16_t(sign | 0x7c00u);
  if (a < 0x38800000u) return uint16_t(sign | uint16_t(std::nearbyint(std::fabs(f) * 16777216.0f)));
  uint32_t r = a + 0xfffu + ((a >> 13) & 1u);
  return uint16_t(sign | ((r - (112u << 23)) >> 13));
}

// fp8 references by definition (OCP FP8), independent of the library's bit arithmetic: a
// code's value in double, and float -> fp8 as the nearest finite code (ties to the even
// code) with the library's documented overflow (e4m3fn saturates, e5m2 goes to infinity).
inline double fp8Value(int code, bool e5m2) {
  const int mantissaBits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7, top = e5m2 ? 31 : 15;
  const int e = (code & 0x7f) >> mantissaBits, m = code & ((1 << mantissaBits) - 1);
  const double sign = (code & 0x80) ? -1.0 : 1.0;
  if (e5m2 && e == top) return m == 0 ? sign * INFINITY : NAN;
  if (!e5m2 && e == top && m == 7) return NAN;
  const double fraction = double(m) / (1 << mantissaBits);
  return sign * (e == 0 ? std::ldexp(fraction, 1 - bias) : std::ldexp(1.0 + fraction, e - bias));
}
inline int fp8Nearest(float x, bool e5m2) {
  const int sign = std::signbit(x) ? 0x80 : 0, largest = e5m2 ? 0x7b : 0x7e;
  if (std::isnan(x)) return sign | (e5m2 ? 0x7e : 0x7f);
  const double a = std::fabs(double(x));
  if (a >= (e5m2 ? 61440.0 : 448.0)) return sign | (e5m2 ? 0x7c : 0x7e);
  int best = 0;
  for (int code = 1; code <= largest; ++code) {
    const double d = std::fabs(fp8Value(code, e5m2) - a), bestD = std::fabs(fp8Value(best, e5m2) - a);
    if (d < bestD || (d == bestD && code % 2 == 0)) best = code;
  }
  return sign | best;
}

struct Report {
  int failures = 0, checks = 0;
  void check(bool ok, const char* what, const std::string& detail = "") {
    ++checks;
    if (!ok) ++failures;
    std::printf("%s  %s %s\n", ok ? "PASS" : "FAIL", what, detail.c_str());
  }
};

// Compares got against want with |got - want| <= atol + rtol * |want|; NaN never matches.
inline bool close(const std::vector<float>& got, const std::vector<float>& want, float atol, float rtol,
                  std::string* detail) {
  if (got.size() != want.size()) { *detail = "size mismatch"; return false; }
  double worst = 0; size_t bad = 0, first = size_t(-1);
  for (size_t i = 0; i < got.size(); ++i) {
    float g = got[i], w = want[i];
    bool ok;
    if (std::isnan(w)) ok = std::isnan(g);
    else if (std::isinf(w)) ok = g == w;
    else ok = !std::isnan(g) && std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (!ok) { ++bad; if (first == size_t(-1)) first = i; }
    if (!std::isnan(g) && !std::isnan(w) && !std::isinf(w)) worst = std::max(worst, double(std::fabs(g - w)));
  }
  char buf[256];
  if (bad) std::snprintf(buf, sizeof buf, "(%zu/%zu bad; first #%zu got %g want %g; max|err| %.3g)", bad, got.size(), first,
                         got[first], want[first], worst);
  else std::snprintf(buf, sizeof buf, "(n=%zu, max|err| %.3g)", got.size(), worst);
  *detail = buf;
  return bad == 0;
}

template <typename T>
struct DeviceBuffer {
  T* ptr = nullptr; size_t n = 0;
  explicit DeviceBuffer(size_t count) : n(count) { CHECK_CUDA(cudaMalloc(&ptr, std::max<size_t>(1, count) * sizeof(T))); poison(); }
  DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { cudaFree(ptr); }
  void poison() { CHECK_CUDA(cudaMemset(ptr, 0xff, std::max<size_t>(1, n) * sizeof(T))); }  // NaN / -1
  void upload(const std::vector<T>& h) { CHECK_CUDA(cudaMemcpy(ptr, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); }
  std::vector<T> download() const { std::vector<T> h(n); CHECK_CUDA(cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost)); return h; }
};

int runAll128(Report& report);
int runAll64(Report& report);

}  // namespace selftest
