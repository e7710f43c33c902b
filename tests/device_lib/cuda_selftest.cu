// Self-test of the CUDA device library (templates/device/cuda/tj) against host references on
// fresh random data, with outputs poisoned by NaN before every kernel and NaN in every cache
// slot that no live token owns. Prints PASS/FAIL per check; exits non-zero on any failure.
// Built by build_selftest.sh; this TU holds main() and the TJ_THREADS=128 copy of the tests.
#define TJ_THREADS 128
#define TJ_NS selftest_t128
#define TJ_RUN_ALL runAll
#include "selftest_impl.inc"

namespace selftest {
int runAll128(Report& report) { return selftest_t128::runAll(report); }
}  // namespace selftest

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
  selftest::Report report;
  selftest::runAll128(report);
  selftest::runAll64(report);
  std::printf("%d/%d checks passed\n", report.checks - report.failures, report.checks);
  return report.failures == 0 ? 0 : 1;
}
