// The TJ_THREADS=64 copy of the device-library self-test (see cuda_selftest.cu).
#define TJ_THREADS 64
#define TJ_NS selftest_t64
#define TJ_RUN_ALL runAll
#include "selftest_impl.inc"

namespace selftest {
int runAll64(Report& report) { return selftest_t64::runAll(report); }
}  // namespace selftest
