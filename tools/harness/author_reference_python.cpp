// A Python reference: reference(**tensors) in a python3 child ($TILEJIT_PYTHON, else python3 in
// PATH) with numpy. Every argument is written as <index>.npy (float64, int64 for integer
// dtypes, 0-d for scalars, which reach the function as numbers) into a private directory with a
// manifest; a driver checks what comes back and writes each output as raw float64.
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "support/process.h"
#include "support/status.h"
#include "tools/harness/author_reference.h"

namespace tilejit {

namespace {

constexpr char kDriver[] = R"py(import importlib.util, json, os, sys
directory, path = sys.argv[1], sys.argv[2]
try:
    import numpy as np
except ImportError:
    sys.exit("numpy is not importable by %s: set TILEJIT_PYTHON to a python3 that has it" % sys.executable)
manifest = json.load(open(os.path.join(directory, "manifest.json")))
tensors = {}
for arg in manifest["arguments"]:
    value = np.load(os.path.join(directory, arg["file"]))
    tensors[arg["name"]] = value.item() if arg["scalar"] else value
spec = importlib.util.spec_from_file_location("tilejit_author_reference", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
if not callable(getattr(module, "reference", None)):
    sys.exit("%s defines no reference(**tensors) function" % path)
outputs = manifest["outputs"]
names = [o["name"] for o in outputs]
result = module.reference(**tensors)
if not isinstance(result, dict):
    if len(outputs) == 1 and not isinstance(result, (tuple, list)):
        result = {names[0]: result}
    elif isinstance(result, (tuple, list)) and len(result) == len(outputs):
        result = dict(zip(names, result))
    else:
        sys.exit("reference() returned a %s; it must return a dict of the outputs %s" % (type(result).__name__, names))
for name in result:
    if name not in names:
        sys.exit("reference() returned '%s', which the op does not write (its outputs: %s)" % (name, names))
for o in outputs:
    if o["name"] not in result:
        sys.exit("reference() returned no '%s' (the op's outputs: %s)" % (o["name"], names))
    array = np.asarray(result[o["name"]], dtype=np.float64)
    if array.shape != tuple(o["shape"]):
        sys.exit("reference() returned '%s' of shape %s; the op's '%s' is %s" % (o["name"], tuple(array.shape), o["name"], tuple(o["shape"])))
    np.ascontiguousarray(array).tofile(os.path.join(directory, o["file"]))
)py";

// NumPy's .npy format, version 1.0: magic, header length, a dict literal padded to 64 bytes.
std::string npyFile(const RecordedArgument& argument) {
  bool integer = !isFloat(argument.dtype);
  std::string shape = argument.shape.size() == 1
                          ? absl::StrCat("(", argument.shape[0], ",)")
                          : absl::StrCat("(", absl::StrJoin(argument.shape, ", "), ")");
  std::string header = absl::StrCat("{'descr': '", integer ? "<i8" : "<f8",
                                    "', 'fortran_order': False, 'shape': ", shape, ", }");
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::string file("\x93NUMPY\x01\x00", 8);
  file += char(header.size() & 0xff);
  file += char(header.size() >> 8);
  file += header;
  for (double value : argument.before) {
    if (integer) {
      int64_t code = int64_t(value);
      file.append(reinterpret_cast<const char*>(&code), 8);
    } else {
      file.append(reinterpret_cast<const char*>(&value), 8);
    }
  }
  return file;
}

std::string lastLines(const std::string& text, size_t count) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  if (lines.size() > count) lines.erase(lines.begin(), lines.end() - long(count));
  return absl::StrJoin(lines, "\n");
}

}  // namespace

absl::StatusOr<std::vector<std::vector<double>>> evaluatePythonReference(
    const std::string& path, const std::vector<RecordedArgument>& arguments) {
  if (!readFile(path).ok())
    return absl::NotFoundError(absl::StrCat("cannot read reference '", path, "'"));
  const char* chosen = std::getenv("TILEJIT_PYTHON");
  std::string python = findExecutable(chosen && *chosen ? chosen : "python3");
  if (python.empty())
    return absl::UnavailableError(absl::StrCat("reference '", path, "': no python3 (",
                                               chosen && *chosen ? "TILEJIT_PYTHON=" : "PATH",
                                               chosen && *chosen ? chosen : "", ")"));
  TJ_ASSIGN_OR_RETURN(TempDirectory directory, TempDirectory::create("tilejit-reference"));
  const std::string& root = directory.path();
  nlohmann::json manifest = {{"arguments", nlohmann::json::array()},
                             {"outputs", nlohmann::json::array()}};
  for (size_t i = 0; i < arguments.size(); ++i) {
    const RecordedArgument& argument = arguments[i];
    std::string file = absl::StrCat(i, ".npy");
    TJ_RETURN_IF_ERROR(writeFile(absl::StrCat(root, "/", file), npyFile(argument)));
    manifest["arguments"].push_back(
        {{"name", argument.name}, {"file", file}, {"scalar", argument.scalar}});
    if (argument.written)
      manifest["outputs"].push_back(
          {{"name", argument.name}, {"file", absl::StrCat(i, ".out")}, {"shape", argument.shape}});
  }
  TJ_RETURN_IF_ERROR(writeFile(root + "/manifest.json", manifest.dump()));
  TJ_RETURN_IF_ERROR(writeFile(root + "/driver.py", kDriver));
  TJ_ASSIGN_OR_RETURN(ProcessResult process,
                      runProcess({python, root + "/driver.py", root, path}, root + "/log.txt"));
  if (process.exitCode != 0)
    return absl::InternalError(absl::StrCat("reference '", path, "' failed (", python, "):\n",
                                            lastLines(process.output, 12)));
  std::vector<std::vector<double>> expected;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (!arguments[i].written) continue;
    TJ_ASSIGN_OR_RETURN(std::string bytes, readFile(absl::StrCat(root, "/", i, ".out")));
    if (bytes.size() != arguments[i].before.size() * sizeof(double))
      return absl::InternalError(absl::StrCat("reference '", path, "': output '",
                                              arguments[i].name, "' came back truncated"));
    std::vector<double> values(arguments[i].before.size());
    std::memcpy(values.data(), bytes.data(), bytes.size());
    expected.push_back(std::move(values));
  }
  return expected;
}

}  // namespace tilejit
