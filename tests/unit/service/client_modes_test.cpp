// How the JIT (and so the C ABI) uses tilejitd: off, auto (the daemon when it answers, else an
// in-process compile after one warning) and required (a clear error without it), set in code
// or by TILEJIT_COMPILE_SERVICE / TILEJIT_SERVICE_SOCKET.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "compiler/jit_compiler.h"
#include "daemon_test_util.h"
#include "tools/capi/tilejit_c.h"

namespace tilejit {
namespace {

using namespace tilejit::testing;
using service::CompileServiceMode;

KernelSpec mergeSpec(int headsPerProgram) {
  return KernelSpec::shipped("merge_attn_states", "host",
                             ParameterMap{{"head_size", 64}, {"heads_per_program", headsPerProgram}})
      .value();
}

std::unique_ptr<JitCompiler> jitWith(CompileServiceMode mode, const std::string& socket,
                                     const std::string& cacheDirectory, WarningLog* warnings) {
  JitOptions options;
  options.compileService = mode;
  options.serviceSocket = socket;
  options.cache.directory = cacheDirectory;
  options.cache.warningSink = warnings->sink();
  return JitCompiler::create(options).value();
}

// Sets environment variables for one test and restores them after.
class ScopedEnvironment {
 public:
  void set(const char* name, const std::string& value) {
    const char* old = ::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else ::unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// A running daemon and an auto-mode JIT with a cache of its own.
class WithDaemon : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(daemon.start(), "");
    jit = jitWith(CompileServiceMode::kAuto, scratch.socket(), local.path(), &warnings);
  }
  DaemonScratch scratch;
  DaemonProcess daemon = scratch.daemon();
  ScratchDirectory local{"local_cache"};
  WarningLog warnings;
  std::unique_ptr<JitCompiler> jit;
};

TEST_F(WithDaemon, AutoAsksTheDaemonAndKeepsALocalCopy) {
  absl::StatusOr<CompiledKernel> compiled = jit->compile(mergeSpec(2));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE(compiled->fromService);
  EXPECT_EQ(compiled->source, CacheSource::kComputed);  // the daemon compiled it
  EXPECT_EQ(compiled->toolchainSeconds, 0.0) << "this process must not have compiled";
  EXPECT_EQ(daemon.metric("tilejitd_compiles_total"), 1);
  EXPECT_TRUE(warnings.messages.empty());
  EXPECT_EQ(entryFiles(local.path()).size(), 1u) << "a copy for starting without the daemon";
  // A second JIT with the same local cache finds it there: no round trip.
  auto second = jitWith(CompileServiceMode::kAuto, scratch.socket(), local.path(), &warnings);
  compiled = second->compile(mergeSpec(2));
  ASSERT_TRUE(compiled.ok());
  EXPECT_FALSE(compiled->fromService);
  EXPECT_EQ(compiled->source, CacheSource::kDisk);
  EXPECT_EQ(daemon.metric("tilejitd_requests_total{kind=\"compile\"}"), 1);
}

TEST(CompileServiceModes, AutoWithoutADaemonCompilesInProcessAfterOneWarning) {
  ScratchDirectory scratch("no_daemon");
  WarningLog warnings;
  auto jit = jitWith(CompileServiceMode::kAuto, scratch / "absent.sock", scratch / "cache", &warnings);
  for (int headsPerProgram : {1, 2}) {
    absl::StatusOr<CompiledKernel> compiled = jit->compile(mergeSpec(headsPerProgram));
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    EXPECT_FALSE(compiled->fromService);
    EXPECT_EQ(compiled->source, CacheSource::kComputed);
  }
  ASSERT_EQ(warnings.messages.size(), 1u) << "one warning per process, not per kernel";
  EXPECT_NE(warnings.messages[0].find(scratch / "absent.sock"), std::string::npos);
  EXPECT_NE(warnings.messages[0].find("compiling in-process"), std::string::npos);
}

TEST(CompileServiceModes, RequiredWithoutADaemonFailsNamingTheSocket) {
  ScratchDirectory scratch("no_daemon");
  WarningLog warnings;
  auto jit = jitWith(CompileServiceMode::kRequired, scratch / "absent.sock", scratch / "cache",
                     &warnings);
  absl::StatusOr<CompiledKernel> compiled = jit->compile(mergeSpec(1));
  ASSERT_FALSE(compiled.ok());
  EXPECT_TRUE(absl::IsUnavailable(compiled.status()));
  EXPECT_NE(compiled.status().message().find("TILEJIT_COMPILE_SERVICE=required"), std::string::npos);
  EXPECT_NE(compiled.status().message().find(scratch / "absent.sock"), std::string::npos);
  EXPECT_TRUE(entryFiles(scratch / "cache").empty()) << "nothing was compiled in-process";
}

TEST_F(WithDaemon, TheDaemonsRejectionIsTheCallersError) {
  KernelSpec spec = mergeSpec(1);
  spec.parameters["head_size"] = 65;
  absl::StatusOr<CompiledKernel> compiled = jit->compile(spec);
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.status().message().find("head_size"), std::string::npos);
  EXPECT_TRUE(warnings.messages.empty()) << "a daemon that answered is not a missing daemon";
}

TEST(CompileServiceModes, TheEnvironmentSetsTheModeForTheCAbi) {
  ScratchDirectory scratch("env");
  ScopedEnvironment environment;
  environment.set("TILEJIT_COMPILE_SERVICE", "required");
  environment.set("TILEJIT_SERVICE_SOCKET", scratch / "absent.sock");
  environment.set("TILEJIT_CACHE_DIR", scratch / "cache");
  tj_jit* jit = tj_jit_create(1);
  ASSERT_NE(jit, nullptr) << tj_last_error();
  tj_device* device = tj_device_create_cpu();
  const char* params[] = {"head_size=64"};
  EXPECT_EQ(tj_kernel_load(jit, device, "merge_attn_states", params, 1, nullptr), nullptr);
  EXPECT_NE(std::string(tj_last_error()).find("TILEJIT_COMPILE_SERVICE=required"), std::string::npos)
      << tj_last_error();
  tj_jit_destroy(jit);

  DaemonScratch daemonScratch;
  DaemonProcess daemon = daemonScratch.daemon();
  ASSERT_EQ(daemon.start(), "");
  environment.set("TILEJIT_SERVICE_SOCKET", daemonScratch.socket());
  jit = tj_jit_create(0);
  tj_compile_info info{sizeof(tj_compile_info)};
  EXPECT_NE(tj_kernel_load(jit, device, "merge_attn_states", params, 1, &info), nullptr)
      << tj_last_error();
  EXPECT_EQ(daemon.metric("tilejitd_compiles_total"), 1) << "the C ABI's JIT asked the daemon";
  EXPECT_EQ(info.toolchain_seconds, 0.0);
  tj_jit_destroy(jit);
  tj_device_destroy(device);

  environment.set("TILEJIT_COMPILE_SERVICE", "sometimes");
  std::string warning;
  EXPECT_EQ(service::compileServiceModeFromEnvironment(&warning), CompileServiceMode::kOff);
  EXPECT_NE(warning.find("'sometimes' is not one of off, auto, required"), std::string::npos);
}

}  // namespace
}  // namespace tilejit
