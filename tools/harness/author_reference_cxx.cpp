// A C/C++ reference: compiled by the host C++ compiler into a shared object with
// tilejit_reference.h and a small shim that turns an escaping exception into an error, loaded
// here and called in a forked child, so that a crash is an error naming the file. The outputs
// come back through shared memory.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "compiler/backends/cpu/host_cxx_toolchain.h"
#include "compiler/targets/target_description.h"
#include "support/dynamic_library.h"
#include "support/process.h"
#include "support/status.h"
#include "tools/harness/author_reference.h"
#include "tools/harness/tilejit_reference.h"

namespace tilejit {

extern const char kReferenceHeader[];  // tilejit_reference.h's text (generated)

namespace {

constexpr char kShim[] = R"(
#include <cstdio>
#include <exception>
extern "C" int tilejit_reference_call(const tj_host_tensor* in, int n_in, tj_host_tensor* out,
                                      int n_out, char* error, int size) {
  try {
    return tilejit_reference(in, n_in, out, n_out);
  } catch (const std::exception& e) {
    std::snprintf(error, size, "threw %s", e.what());
  } catch (...) {
    std::snprintf(error, size, "threw an exception that is not a std::exception");
  }
  return -1;
}
)";

using CallFn = int (*)(const tj_host_tensor*, int, tj_host_tensor*, int, char*, int);
using ErrorFn = const char* (*)();

struct SharedResult {
  int returned = 0;
  int called = 0;
  char error[2048] = {};
};

}  // namespace

absl::StatusOr<std::vector<std::vector<double>>> evaluateCxxReference(
    const std::string& path, const std::vector<RecordedArgument>& arguments) {
  absl::StatusOr<std::string> text = readFile(path);
  if (!text.ok())
    return absl::NotFoundError(absl::StrCat("cannot read reference '", path, "'"));
  TJ_ASSIGN_OR_RETURN(const TargetDescription* host, lookupTarget("host"));
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Toolchain> toolchain, createHostCxxToolchain(*host));
  CompileRequest request;
  request.source = absl::StrCat("#include \"tilejit_reference.h\"\n#line 1 \"", path, "\"\n",
                                *text, "\n#line 1 \"tilejit_reference_call.cpp\"\n", kShim);
  request.sourceName = "reference.cpp";
  request.target = host;
  request.headers = {{"tilejit_reference.h", kReferenceHeader}};
  absl::StatusOr<CompileResult> compiled = toolchain->compile(request);
  if (!compiled.ok())
    return absl::InvalidArgumentError(absl::StrCat("reference '", path, "' does not compile: ",
                                                   compiled.status().message()));
  TJ_ASSIGN_OR_RETURN(TempDirectory directory, TempDirectory::create("tilejit-reference"));
  std::string library = directory.path() + "/reference.so";
  TJ_RETURN_IF_ERROR(writeFile(library, compiled->binary));
  absl::StatusOr<DynamicLibrary> loaded = DynamicLibrary::open({library});
  if (!loaded.ok())
    return absl::InvalidArgumentError(absl::StrCat("reference '", path, "' does not load: ",
                                                   loaded.status().message()));
  if (!loaded->rawSymbol("tilejit_reference").ok())
    return absl::InvalidArgumentError(absl::StrCat(
        "reference '", path, "' defines no tilejit_reference() (tools/harness/tilejit_reference.h)"));
  TJ_ASSIGN_OR_RETURN(CallFn call, loaded->symbol<CallFn>("tilejit_reference_call"));
  absl::StatusOr<ErrorFn> errorText = loaded->symbol<ErrorFn>("tilejit_reference_error");

  // The outputs start as the op found them, in memory the child shares.
  size_t values = 0;
  for (const RecordedArgument& argument : arguments)
    if (argument.written) values += argument.before.size();
  size_t bytes = sizeof(SharedResult) + values * sizeof(double);
  void* shared = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED)
    return absl::ResourceExhaustedError(absl::StrCat("mmap of ", bytes, " bytes: ", std::strerror(errno)));
  auto* result = new (shared) SharedResult;
  auto* data = reinterpret_cast<double*>(static_cast<char*>(shared) + sizeof(SharedResult));
  std::vector<tj_host_tensor> inputs, outputs;
  std::vector<std::vector<double>> inputValues;
  std::vector<std::string> dtypes;
  for (const RecordedArgument& argument : arguments) dtypes.emplace_back(dtypeName(argument.dtype));
  inputValues.reserve(arguments.size());
  size_t offset = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const RecordedArgument& argument = arguments[i];
    tj_host_tensor tensor{argument.name.c_str(), dtypes[i].c_str(), int(argument.shape.size()),
                          argument.shape.data(), int64_t(argument.before.size()), nullptr};
    if (argument.written) {
      tensor.data = data + offset;
      std::memcpy(tensor.data, argument.before.data(), argument.before.size() * sizeof(double));
      offset += argument.before.size();
      outputs.push_back(tensor);
    } else {
      inputValues.push_back(argument.before);
      tensor.data = inputValues.back().data();
      inputs.push_back(tensor);
    }
  }
  pid_t child = fork();
  if (child == 0) {
    result->returned = call(inputs.data(), int(inputs.size()), outputs.data(), int(outputs.size()),
                            result->error, int(sizeof(result->error)));
    if (result->returned != 0 && result->error[0] == 0 && errorText.ok() && (*errorText)())
      std::snprintf(result->error, sizeof(result->error), "%s", (*errorText)());
    result->called = 1;
    _exit(0);
  }
  int status = 0;
  while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  absl::Status failure;
  if (child < 0) {
    failure = absl::UnavailableError(absl::StrCat("fork: ", std::strerror(errno)));
  } else if (WIFSIGNALED(status)) {
    failure = absl::InternalError(absl::StrCat("reference '", path, "' crashed (signal ",
                                               WTERMSIG(status), ", ", strsignal(WTERMSIG(status)), ")"));
  } else if (!result->called) {
    failure = absl::InternalError(absl::StrCat("reference '", path, "' exited (status ",
                                               WEXITSTATUS(status), ") instead of returning"));
  } else if (result->returned != 0) {
    failure = absl::InternalError(absl::StrCat("reference '", path, "' returned ", result->returned,
                                               result->error[0] ? ": " : "", result->error));
  }
  std::vector<std::vector<double>> expected;
  for (const tj_host_tensor& tensor : outputs)
    expected.emplace_back(tensor.data, tensor.data + tensor.numel);
  munmap(shared, bytes);
  if (!failure.ok()) return failure;
  return expected;
}

}  // namespace tilejit
