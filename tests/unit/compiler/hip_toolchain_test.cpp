// The AMD toolchains (comgr, hiprtc, the in-process LLVM AMDGPU plugin) and the choice among
// them. No AMD GPU here: these compile and inspect code objects, never run them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

#include "compiler/backends/hip/amd_compile.h"
#include "compiler/backends/hip/amd_toolchains.h"
#include "compiler/backends/hip/comgr_toolchain.h"
#include "compiler/backends/hip/hiprtc_toolchain.h"
#include "compiler/backends/hip/llvm_amdgpu_toolchain.h"
#include "compiler/targets/target_description.h"

namespace tilejit {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A kernel of the test's own (not the device library's), with a helper from an in-memory
// header found by its include name.
constexpr char kHeader[] = R"(
#pragma once
namespace tj_test {
__attribute__((device)) inline float scaled(float x, float s) { return x * s; }
}
)";
constexpr char kSource[] = R"(
#include "tj_test/scale.h"
extern "C" __attribute__((global)) void tj_test_scale(float* out, const float* in, float s) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  out[i] = tj_test::scaled(in[i], s);
}
)";
constexpr char kEntry[] = "tj_test_scale";

// The Debian ROCm 5.2 comgr and hiprtc (scripts/setup.sh installs libamd-comgr2 and
// libamdhip64-5): where one is absent, the tests of its route skip saying which, rather than
// fail on a machine that never had it.
bool isMissingLibrary(const absl::Status& status) {
  return absl::IsUnavailable(status) && absl::StrContains(status.message(), " not found: tried ");
}
#define TJ_SKIP_WITHOUT(route, status)                                                       \
  if (isMissingLibrary(status))                                                            \
  GTEST_SKIP() << route << " 5.2 (Debian's libamd-comgr2 / libamdhip64-5, scripts/setup.sh) " \
               << "is not installed here: " << (status).message()

const TargetDescription& target(const char* name) {
  absl::StatusOr<const TargetDescription*> found = lookupTarget(name);
  EXPECT_TRUE(found.ok()) << found.status();
  return **found;
}

CompileRequest request(const TargetDescription& description) {
  CompileRequest request;
  request.source = kSource;
  request.sourceName = "scale.cpp";
  request.entry = kEntry;
  request.target = &description;
  request.headers = {{"tj_test/scale.h", kHeader}};
  return request;
}

TEST(AmdCodeObject, RejectsWhatIsNotAnAmdgpuCodeObjectWithTheEntry) {
  EXPECT_FALSE(amdKernelOf("not an elf", kEntry).ok());
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain =
      createLlvmAmdgpuToolchain(target("gfx942"));
  ASSERT_TRUE(toolchain.ok()) << toolchain.status();
  absl::StatusOr<CompileResult> compiled = (*toolchain)->compile(request(target("gfx942")));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_THAT(amdKernelOf(compiled->binary, "tj_other").status().message(),
              HasSubstr("holds no kernel named tj_other; it holds tj_test_scale"));
  CompileRequest misnamed = request(target("gfx942"));
  misnamed.entry = "tj_other";
  EXPECT_THAT((*toolchain)->compile(misnamed).status().message(),
              HasSubstr("holds no kernel named tj_other"));
}

// The code object is an AMDGPU ELF of code object v5 whose metadata and symbols hold the
// kernel, and the toolchain took its resources from it.
void expectCodeObject(const CompileResult& compiled, const char* name, int version = 5) {
  ASSERT_GE(compiled.binary.size(), 64u) << name;
  EXPECT_EQ(compiled.binary.compare(0, 4, "\x7f" "ELF"), 0) << name;
  uint16_t machine;
  std::memcpy(&machine, compiled.binary.data() + 18, 2);
  EXPECT_EQ(machine, 224) << name;  // EM_AMDGPU
  absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(compiled.binary);
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->target.substr(0, object->target.find(':')),
            absl::StrCat("amdgcn-amd-amdhsa--", name));
  EXPECT_EQ(object->codeObjectVersion, version) << name;
  ASSERT_EQ(object->kernels.size(), 1u) << name;
  EXPECT_EQ(object->kernels[0].name, kEntry);
  EXPECT_EQ(object->kernels[0].symbol, absl::StrCat(kEntry, ".kd"));
  EXPECT_NE(compiled.binary.find(absl::StrCat(kEntry, ".kd")), std::string::npos);
  EXPECT_GT(compiled.resources.registers, 0) << name;
  EXPECT_EQ(compiled.resources.localBytes, 0) << name;
}

TEST(ComgrToolchain, ListsItsIsasAndCompilesGfx90a) {
  absl::StatusOr<std::vector<std::string>> isas = comgrIsaNames();
  TJ_SKIP_WITHOUT("comgr", isas.status());
  ASSERT_TRUE(isas.ok()) << isas.status();
  EXPECT_THAT(*isas, Contains("amdgcn-amd-amdhsa--gfx90a"));
  EXPECT_THAT(*isas, Not(Contains("amdgcn-amd-amdhsa--gfx942")));  // comgr 5.2's list

  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createComgrToolchain(target("gfx90a"));
  ASSERT_TRUE(toolchain.ok()) << toolchain.status();
  EXPECT_THAT((*toolchain)->identity(),
              AllOf(StartsWith("comgr 2."), HasSubstr("-mcode-object-version=5")));
  absl::StatusOr<CompileResult> compiled = (*toolchain)->compile(request(target("gfx90a")));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  expectCodeObject(*compiled, "gfx90a");
  EXPECT_THAT(compiled->intermediate, AllOf(HasSubstr("tj_test_scale:"), HasSubstr("s_endpgm")));
}

TEST(ComgrToolchain, RejectsAnIsaItDoesNotListCleanly) {
  TJ_SKIP_WITHOUT("comgr", comgrIsaNames().status());
  TargetDescription unknown = target("gfx90a");
  unknown.name = "gfx9999";
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createComgrToolchain(unknown);
  ASSERT_FALSE(toolchain.ok());
  EXPECT_EQ(toolchain.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(toolchain.status().message(),
              AllOf(HasSubstr("does not know gfx9999"), HasSubstr("it lists"),
                    HasSubstr("gfx90a")));
  EXPECT_FALSE(createComgrToolchain(target("gfx942")).ok());
}

TEST(ComgrToolchain, ReportsAMissingLibraryByName) {
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain =
      createComgrToolchain(target("gfx90a"), {"libtilejit_absent_comgr.so.2"});
  ASSERT_FALSE(toolchain.ok());
  EXPECT_EQ(toolchain.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(toolchain.status().message(),
              AllOf(HasSubstr("comgr not found"), HasSubstr("libtilejit_absent_comgr.so.2")));
}

TEST(HiprtcToolchain, CompilesGfx90a) {
  TJ_SKIP_WITHOUT("comgr", comgrIsaNames().status());
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createHiprtcToolchain(target("gfx90a"));
  TJ_SKIP_WITHOUT("hiprtc", toolchain.status());
  ASSERT_TRUE(toolchain.ok()) << toolchain.status();
  EXPECT_THAT((*toolchain)->identity(),
              AllOf(StartsWith("hiprtc "), HasSubstr("(libamdhip64.so.5."),
                    HasSubstr("--offload-arch=gfx90a")));
  absl::StatusOr<CompileResult> compiled = (*toolchain)->compile(request(target("gfx90a")));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  expectCodeObject(*compiled, "gfx90a", /*version=*/4);  // hiprtc 5.2 makes v4 only
}

// hiprtc 5.2 aborts the process on gfx942: it must never see it, and this test must live on.
TEST(HiprtcToolchain, IsNeverHandedATargetComgrDoesNotList) {
  // Without comgr there is no list, and hiprtc is handed nothing (checked below too).
  const bool comgrPresent = !isMissingLibrary(comgrIsaNames().status());
  for (const char* name : {"gfx942", "gfx1100", "gfx1201", "gfx950"}) {
    absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createHiprtcToolchain(target(name));
    ASSERT_FALSE(toolchain.ok()) << name;
    EXPECT_THAT(toolchain.status().message(), HasSubstr(absl::StrCat("hiprtc is not handed ", name)));
    if (comgrPresent)
      EXPECT_THAT(toolchain.status().message(), HasSubstr(absl::StrCat("does not know ", name)));
    // The route named by the user is refused the same way, before hiprtc is even opened.
    absl::StatusOr<std::unique_ptr<Toolchain>> forced = createAmdToolchain(target(name), "hiprtc");
    ASSERT_FALSE(forced.ok()) << name;
    EXPECT_THAT(forced.status().message(), HasSubstr(absl::StrCat("hiprtc is not handed ", name)));
  }
  // Without comgr to vouch for it, no target reaches hiprtc.
  absl::StatusOr<std::unique_ptr<Toolchain>> unvouched = createHiprtcToolchain(
      target("gfx90a"), hiprtcCandidates(), {"libtilejit_absent_comgr.so.2"});
  ASSERT_FALSE(unvouched.ok());
  EXPECT_THAT(unvouched.status().message(),
              AllOf(HasSubstr("hiprtc is not handed gfx90a"),
                    HasSubstr("libtilejit_absent_comgr.so.2")));
}

TEST(HiprtcToolchain, ReportsAMissingLibraryByName) {
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain =
      createHiprtcToolchain(target("gfx90a"), {"libtilejit_absent_hiprtc.so"});
  ASSERT_FALSE(toolchain.ok());
  EXPECT_THAT(toolchain.status().message(),
              AllOf(HasSubstr("hiprtc not found"), HasSubstr("libtilejit_absent_hiprtc.so")));
}

TEST(LlvmAmdgpuToolchain, CompilesEveryAmdTargetToCodeObjectV5) {
  for (const char* name : {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"}) {
    absl::StatusOr<std::unique_ptr<Toolchain>> toolchain =
        createLlvmAmdgpuToolchain(target(name));
    ASSERT_TRUE(toolchain.ok()) << toolchain.status();
    EXPECT_THAT((*toolchain)->identity(), AllOf(StartsWith("llvm-amdgpu 22."),
                                                HasSubstr(absl::StrCat("--offload-arch=", name)),
                                                HasSubstr("-mcode-object-version=5")));
    absl::StatusOr<CompileResult> compiled = (*toolchain)->compile(request(target(name)));
    ASSERT_TRUE(compiled.ok()) << name << ": " << compiled.status();
    expectCodeObject(*compiled, name);
    EXPECT_THAT(compiled->intermediate,
                AllOf(HasSubstr(absl::StrCat(".amdgcn_target \"amdgcn-amd-amdhsa--", name)),
                      HasSubstr("s_endpgm")))
        << name;
  }
}

// The JIT compiles from many threads; the plugin's compiles run side by side.
TEST(LlvmAmdgpuToolchain, CompilesFromSeveralThreadsAtOnce) {
  std::vector<std::unique_ptr<Toolchain>> toolchains;
  for (const char* name : {"gfx942", "gfx1201", "gfx950", "gfx1100"}) {
    absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createLlvmAmdgpuToolchain(target(name));
    ASSERT_TRUE(toolchain.ok()) << toolchain.status();
    toolchains.push_back(*std::move(toolchain));
  }
  std::vector<absl::StatusOr<CompileResult>> results(8, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  const char* names[] = {"gfx942", "gfx1201", "gfx950", "gfx1100"};
  for (size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] { results[i] = toolchains[i % 4]->compile(request(target(names[i % 4]))); });
  for (std::thread& thread : threads) thread.join();
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].status();
    expectCodeObject(*results[i], names[i % 4]);
  }
}

TEST(LlvmAmdgpuToolchain, ReportsCompileErrorsAndUnknownProcessors) {
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain =
      createLlvmAmdgpuToolchain(target("gfx942"));
  ASSERT_TRUE(toolchain.ok()) << toolchain.status();
  CompileRequest broken = request(target("gfx942"));
  broken.source += "\nint broken = undeclared_name;\n";
  absl::StatusOr<CompileResult> compiled = (*toolchain)->compile(broken);
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(),
              AllOf(HasSubstr("failed to compile scale.cpp for gfx942"),
                    HasSubstr("undeclared_name")));

  TargetDescription unknown = target("gfx942");
  unknown.name = "gfx9999";
  EXPECT_THAT(createLlvmAmdgpuToolchain(unknown).status().message(),
              HasSubstr("has no AMDGPU processor named gfx9999"));
}

TEST(LlvmAmdgpuToolchain, ReportsAMissingPluginByName) {
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain =
      createLlvmAmdgpuToolchain(target("gfx942"), {"/nonexistent/libtilejit_amdgpu.so"});
  ASSERT_FALSE(toolchain.ok());
  EXPECT_THAT(toolchain.status().message(),
              AllOf(HasSubstr("libtilejit_amdgpu.so (the in-process LLVM AMDGPU compiler) not "
                              "found"),
                    HasSubstr("/nonexistent/libtilejit_amdgpu.so")));
  std::vector<std::string> candidates = llvmAmdgpuCandidates();
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.back(), "libtilejit_amdgpu.so");
}

TEST(AmdToolchains, IdentitiesDifferPerRoute) {
  TJ_SKIP_WITHOUT("comgr", comgrIsaNames().status());
  TJ_SKIP_WITHOUT("hiprtc", createHiprtcToolchain(target("gfx90a")).status());
  std::set<std::string> identities;
  for (const std::string& route : amdToolchainRoutes()) {
    absl::StatusOr<std::unique_ptr<Toolchain>> toolchain =
        createAmdToolchain(target("gfx90a"), route);
    ASSERT_TRUE(toolchain.ok()) << route << ": " << toolchain.status();
    identities.insert((*toolchain)->identity());
  }
  EXPECT_EQ(identities.size(), amdToolchainRoutes().size());
}

// This machine's comgr and hiprtc are ROCm 5.2's: chosen only when named, so every target gets
// the in-process compiler, and the choice says why it passed over the others.
TEST(AmdToolchains, PassesOverRocm5AndPicksLlvmForEveryTarget) {
  for (const char* name : {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"}) {
    absl::StatusOr<std::unique_ptr<Toolchain>> chosen = createAmdToolchain(target(name));
    ASSERT_TRUE(chosen.ok()) << chosen.status();
    EXPECT_THAT((*chosen)->identity(), StartsWith("llvm-amdgpu ")) << name;
  }
  absl::StatusOr<std::unique_ptr<Toolchain>> forced = createAmdToolchain(target("gfx90a"), "comgr");
  TJ_SKIP_WITHOUT("comgr", forced.status());
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_THAT((*forced)->identity(), StartsWith("comgr 2.4 "));
}

TEST(AmdToolchains, ListsEveryRouteTriedWhenNoneServes) {
  TJ_SKIP_WITHOUT("comgr", comgrIsaNames().status());
  TargetDescription unknown = target("gfx90a");
  unknown.name = "gfx9999";
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createAmdToolchain(unknown);
  ASSERT_FALSE(toolchain.ok());
  EXPECT_THAT(toolchain.status().message(),
              AllOf(HasSubstr("no AMD toolchain serves gfx9999; tried comgr: comgr 2.4 is ROCm 5's"),
                    HasSubstr("; hiprtc: "), HasSubstr("; llvm: "),
                    HasSubstr("has no AMDGPU processor named gfx9999")));
  EXPECT_THAT(createAmdToolchain(target("gfx90a"), "nvcc").status().message(),
              HasSubstr("unknown AMD toolchain route 'nvcc'; known: comgr, hiprtc, llvm"));
}

}  // namespace
}  // namespace tilejit
