// clang's cc1 for HIP device code (the argument list clang++-22's driver prints for
// `-x hip --offload-arch=gfxN --offload-device-only --no-gpu-bundle-output -nogpuinc -nogpulib
// -O3 -mcode-object-version=5 -c`, built here instead of running the driver), over an in-memory
// file system for the source and headers, then lld's ELF driver as `ld.lld -m elf64_amdgpu
// --no-undefined -shared`. Output is what `clang++-22` itself produces for those flags.
#include "tilejit_amdgpu.h"

#include <stdlib.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "lld/Common/Driver.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/TargetParser/TargetParser.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

// lld's ELF driver initializes every configured target for LTO, which AMDGPU code objects
// never use here; only AMDGPU is linked, so the others are empty.
#define TILEJIT_NO_TARGET(name)                                \
  extern "C" void LLVMInitialize##name##TargetInfo() {}        \
  extern "C" void LLVMInitialize##name##Target() {}            \
  extern "C" void LLVMInitialize##name##TargetMC() {}          \
  extern "C" void LLVMInitialize##name##AsmPrinter() {}        \
  extern "C" void LLVMInitialize##name##AsmParser() {}         \
  extern "C" void LLVMInitialize##name##Disassembler() {}
TILEJIT_NO_TARGET(AArch64)
TILEJIT_NO_TARGET(ARM)
TILEJIT_NO_TARGET(AVR)
TILEJIT_NO_TARGET(BPF)
TILEJIT_NO_TARGET(Hexagon)
TILEJIT_NO_TARGET(Lanai)
TILEJIT_NO_TARGET(LoongArch)
TILEJIT_NO_TARGET(Mips)
TILEJIT_NO_TARGET(MSP430)
TILEJIT_NO_TARGET(NVPTX)
TILEJIT_NO_TARGET(PowerPC)
TILEJIT_NO_TARGET(RISCV)
TILEJIT_NO_TARGET(Sparc)
TILEJIT_NO_TARGET(SPIRV)
TILEJIT_NO_TARGET(SystemZ)
TILEJIT_NO_TARGET(VE)
TILEJIT_NO_TARGET(WebAssembly)
TILEJIT_NO_TARGET(X86)
TILEJIT_NO_TARGET(XCore)
TILEJIT_NO_TARGET(M68k)
TILEJIT_NO_TARGET(Xtensa)
#undef TILEJIT_NO_TARGET

// Debian's LLVM registers Polly as a static extension of the optimization pipeline, in a
// library (LLVMPolly.so) that is not linked here: an extension that adds nothing stands in.
llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly", "none", [](llvm::PassBuilder&) {}};
}

namespace {

constexpr char kSourceDirectory[] = "/tilejit-amdgpu";
constexpr char kIncludeDirectory[] = "/tilejit-amdgpu/include";

void initializeOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser();
    // The driver's `-mllvm` options, which cc1_main (not CreateFromArgs) hands to LLVM.
    const char* options[] = {"tilejit-amdgpu", "-amdgpu-internalize-symbols"};
    llvm::cl::ParseCommandLineOptions(2, options, "", &llvm::nulls());
  });
}

// The cc1 arguments of the driver line above, less the host include paths (the device library
// includes no system header) and the output file (an in-memory stream).
std::vector<std::string> cc1Arguments(const TilejitAmdgpuRequest& request, bool assembly,
                                      const std::string& mainFile) {
  std::string version = std::to_string(request.code_object_version);
  return {"-cc1", "-mcode-object-version=" + version, "-triple", "amdgcn-amd-amdhsa",
          "-aux-triple", "x86_64-pc-linux-gnu", "-O3", "-Werror=atomic-alignment",
          assembly ? "-S" : "-emit-obj", "-disable-free", "-clear-ast-before-backend",
          "-disable-llvm-verifier", "-discard-value-names", "-main-file-name",
          request.source_name, "-mrelocation-model", "pic", "-pic-level", "2",
          "-fhalf-no-semantic-interposition", "-mframe-pointer=none", "-fno-rounding-math",
          "-mconstructor-aliases", "-aux-target-cpu", "x86-64", "-fcuda-is-device",
          "-fno-threadsafe-statics", "-fcuda-allow-variadic-functions", "-fvisibility=hidden",
          "-fapply-global-visibility-to-externs", "-target-cpu", request.target,
          "-resource-dir", CLANG_RESOURCE_DIRECTORY, "-internal-isystem",
          std::string(CLANG_RESOURCE_DIRECTORY) + "/include", "-I", kIncludeDirectory,
          "-std=c++17", "-fdeprecated-macro", "-fno-autolink", "-ferror-limit", "19",
          "-fhip-new-launch-api", "--no-offloadlib", "-fgnuc-version=4.2.1",
          "-fskip-odr-check-in-gmf", "-fcxx-exceptions", "-fexceptions", "-vectorize-loops",
          "-vectorize-slp", "-faddrsig", "-fdwarf2-cfi-asm", "-x", "hip", mainFile};
}

// Runs cc1 once; the object (or assembly) lands in `output`, diagnostics in `log`.
bool runCc1(const TilejitAmdgpuRequest& request, bool assembly, llvm::SmallVectorImpl<char>& output,
            std::string& log) {
  const std::string mainFile = std::string(kSourceDirectory) + "/" + request.source_name;
  std::vector<std::string> arguments = cc1Arguments(request, assembly, mainFile);
  std::vector<const char*> argv;
  for (size_t i = 1; i < arguments.size(); ++i) argv.push_back(arguments[i].c_str());

  llvm::raw_string_ostream logStream(log);
  clang::DiagnosticOptions diagnosticOptions;
  clang::TextDiagnosticPrinter printer(logStream, diagnosticOptions);
  clang::DiagnosticsEngine diagnostics(clang::DiagnosticIDs::create(), diagnosticOptions,
                                       &printer, /*ShouldOwnClient=*/false);
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, diagnostics)) return false;

  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  memory->addFile(mainFile, 0,
                  llvm::MemoryBuffer::getMemBufferCopy(
                      llvm::StringRef(request.source, request.source_size), mainFile));
  for (size_t i = 0; i < request.header_count; ++i) {
    std::string path = std::string(kIncludeDirectory) + "/" + request.header_names[i];
    memory->addFile(path, 0,
                    llvm::MemoryBuffer::getMemBufferCopy(
                        llvm::StringRef(request.header_contents[i], request.header_sizes[i]),
                        path));
  }
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(memory);

  clang::CompilerInstance compiler(std::move(invocation));
  compiler.setVirtualFileSystem(overlay);
  compiler.createDiagnostics(&printer, /*ShouldOwnClient=*/false);
  compiler.setVerboseOutputStream(logStream);  // "1 error generated" belongs in the log too
  compiler.createFileManager();
  compiler.getFrontendOpts().OutputFile = "-";
  compiler.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(output));
  llvm::LLVMContext context;
  std::unique_ptr<clang::CodeGenAction> action;
  if (assembly)
    action = std::make_unique<clang::EmitAssemblyAction>(&context);
  else
    action = std::make_unique<clang::EmitObjAction>(&context);
  bool ok = compiler.ExecuteAction(*action);
  logStream.flush();
  return ok && !compiler.getDiagnostics().hasErrorOccurred();
}

// A private directory for lld's input and output files, removed with its contents.
class LinkDirectory {
 public:
  LinkDirectory() {
    const char* base = getenv("TMPDIR");
    path_ = std::string(base && *base ? base : "/tmp") + "/tilejit-amdgpu-XXXXXX";
    if (!mkdtemp(path_.data())) path_.clear();
  }
  LinkDirectory(const LinkDirectory&) = delete;
  LinkDirectory& operator=(const LinkDirectory&) = delete;
  ~LinkDirectory() {
    if (!path_.empty()) llvm::sys::fs::remove_directories(path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

bool link(llvm::StringRef object, std::string& codeObject, std::string& log) {
  LinkDirectory directory;
  if (directory.path().empty()) {
    log += "cannot create a temporary directory for lld\n";
    return false;
  }
  const std::string input = directory.path() + "/kernel.o";
  const std::string output = directory.path() + "/kernel.co";
  {
    std::error_code error;
    llvm::raw_fd_ostream file(input, error);
    if (error) {
      log += "cannot write " + input + ": " + error.message() + "\n";
      return false;
    }
    file << object;
  }
  const char* arguments[] = {"ld.lld", "-m", "elf64_amdgpu", "--no-undefined", "-shared",
                             "-o", output.c_str(), input.c_str()};
  std::string linkLog;
  llvm::raw_string_ostream linkStream(linkLog);
  // lld keeps its context in globals: one link at a time (2-4 ms each).
  static std::mutex linking;
  lld::Result result;
  {
    std::lock_guard<std::mutex> lock(linking);
    result = lld::lldMain(arguments, linkStream, linkStream, {{lld::Gnu, &lld::elf::link}});
  }
  linkStream.flush();
  log += linkLog;
  if (result.retCode != 0) return false;
  auto buffer = llvm::MemoryBuffer::getFile(output);
  if (!buffer) {
    log += "lld wrote no " + output + "\n";
    return false;
  }
  codeObject = (*buffer)->getBuffer().str();
  return true;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const char* tilejit_amdgpu_version(void) {
  return "llvm-amdgpu " LLVM_VERSION_STRING;
}

extern "C" __attribute__((visibility("default"))) int tilejit_amdgpu_knows_target(
    const char* target) {
  return target && llvm::AMDGPU::parseArchAMDGCN(target) != llvm::AMDGPU::GK_NONE;
}

extern "C" __attribute__((visibility("default"))) int tilejit_amdgpu_compile(
    const TilejitAmdgpuRequest* request) {
  if (!request || request->abi_version != TILEJIT_AMDGPU_ABI_VERSION || !request->sink ||
      !tilejit_amdgpu_knows_target(request->target))
    return 2;
  initializeOnce();
  std::string log;
  llvm::SmallString<0> object;
  bool ok = runCc1(*request, /*assembly=*/false, object, log);
  std::string codeObject;
  if (ok) ok = link(object.str(), codeObject, log);
  if (ok) request->sink(request->context, TILEJIT_AMDGPU_CODE_OBJECT, codeObject.data(),
                        codeObject.size());
  if (ok && request->want_assembly) {
    llvm::SmallString<0> assembly;
    std::string assemblyLog;
    if (runCc1(*request, /*assembly=*/true, assembly, assemblyLog))
      request->sink(request->context, TILEJIT_AMDGPU_ASSEMBLY, assembly.data(), assembly.size());
  }
  request->sink(request->context, TILEJIT_AMDGPU_LOG, log.data(), log.size());
  return ok ? 0 : 1;
}
