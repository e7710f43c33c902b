// Device::launch: argument checking, shape-symbol binding, grid evaluation and kernel-ABI
// packing. The success path never allocates (DESIGN principle 3: launches are graph-capturable
// and cheap); error paths may, since they build messages.
#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/device.h"
#include "support/status.h"

namespace tilejit {

TensorArg TensorArg::contiguous(void* data, DType dtype, std::initializer_list<int64_t> shape) {
  TensorArg arg;
  arg.data = data;
  arg.dtype = dtype;
  // A rank above kMaxRank is kept so that launch() reports it instead of silently truncating.
  arg.rank = static_cast<int>(shape.size());
  int rank = std::min<int>(arg.rank, kMaxRank);
  int i = 0;
  for (int64_t extent : shape) {
    if (i == rank) break;
    arg.shape[i++] = extent;
  }
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    arg.strides[d] = stride;
    stride *= arg.shape[d];
  }
  return arg;
}

namespace {


inline constexpr size_t kMaxPackedBytes = 4096;

std::string argLabel(const ArgSpec& spec, size_t index) {
  return absl::StrCat("argument '", spec.name, "' (#", index + 1, ")");
}

std::string describeSpec(const ArgSpec& spec) {
  if (spec.kind == ArgSpec::Kind::kScalar)
    return absl::StrCat("a ", asAbsl(dtypeName(spec.dtype)), " scalar");
  std::vector<std::string> dims;
  for (const DimSpec& dim : spec.dims)
    dims.push_back(dim.isSymbolic() ? dim.symbol : absl::StrCat(dim.value));
  return absl::StrCat("a ", asAbsl(dtypeName(spec.dtype)), " view [", absl::StrJoin(dims, ", "),
                      "]");
}

std::string describeShape(const TensorArg& tensor) {
  std::vector<int64_t> shape(tensor.shape, tensor.shape + std::min(tensor.rank, kMaxRank));
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

// Names the parameter that fixed an extent when exactly one bound parameter has that value,
// e.g. "head_size=128"; otherwise says only that specialization fixed it.
std::string whyFixed(const KernelMetadata& metadata, int64_t value) {
  std::string text = absl::StrCat(value);
  const std::pair<std::string, std::string>* match = nullptr;
  int matches = 0;
  for (const auto& parameter : metadata.parameters)
    if (parameter.second == text) {
      match = &parameter;
      ++matches;
    }
  if (matches == 1)
    return absl::StrCat("the kernel was specialized for ", match->first, "=", match->second);
  return "fixed when the kernel was specialized";
}

struct BoundSymbol {
  std::string_view name;
  int64_t value;
  size_t arg;
  int dim;
};

absl::Status checkView(const KernelMetadata& metadata, size_t index, const ArgSpec& spec,
                       const TensorArg& tensor, BoundSymbol* symbols, int& symbolCount,
                       int64_t* symbolValues) {
  if (tensor.dtype != spec.dtype)
    return absl::InvalidArgumentError(
        absl::StrCat(argLabel(spec, index), ": dtype ", asAbsl(dtypeName(tensor.dtype)),
                     " does not match the signature's ", asAbsl(dtypeName(spec.dtype))));
  int rank = static_cast<int>(spec.dims.size());
  if (rank > kMaxRank)
    return absl::InvalidArgumentError(absl::StrCat(argLabel(spec, index), ": the signature's rank ",
                                                   rank, " exceeds the runtime's limit ",
                                                   kMaxRank));
  if (tensor.rank != rank)
    return absl::InvalidArgumentError(absl::StrCat(
        argLabel(spec, index), ": rank ", tensor.rank, " (shape ", describeShape(tensor),
        ") does not match the signature's rank ", rank, " (", describeSpec(spec), ")"));

  int64_t elements = 1;
  for (int d = 0; d < rank; ++d) {
    int64_t extent = tensor.shape[d];
    if (extent < 0)
      return absl::InvalidArgumentError(
          absl::StrCat(argLabel(spec, index), " dim ", d, " has negative extent ", extent));
    elements *= extent;
    const DimSpec& dim = spec.dims[d];
    if (!dim.isSymbolic()) {
      if (extent != dim.value)
        return absl::InvalidArgumentError(absl::StrCat(argLabel(spec, index), " dim ", d, " is ",
                                                       extent, " but must be ", dim.value, " (",
                                                       whyFixed(metadata, dim.value), ")"));
      continue;
    }
    int s = 0;
    while (s < symbolCount && symbols[s].name != dim.symbol) ++s;
    if (s == symbolCount) {
      if (symbolCount == kMaxShapeSymbols)
        return absl::InvalidArgumentError(
            absl::StrCat("the kernel has more than ", kMaxShapeSymbols, " shape symbols"));
      symbols[s] = {dim.symbol, extent, index, d};
      symbolValues[s] = extent;
      ++symbolCount;
    } else if (symbols[s].value != extent) {
      const ArgSpec& first = metadata.args[symbols[s].arg];
      return absl::InvalidArgumentError(absl::StrCat(
          "shape symbol '", dim.symbol, "' is ", symbols[s].value, " in argument '", first.name,
          "' dim ", symbols[s].dim, " but ", extent, " in argument '", spec.name, "' dim ", d));
    }
  }
  if (elements == 0) return absl::OkStatus();  // nothing is read or written: any pointer does

  if (tensor.data == nullptr)
    return absl::InvalidArgumentError(absl::StrCat(
        argLabel(spec, index), ": data pointer is null but the view has ", elements, " elements"));
  if (rank == 0) return absl::OkStatus();
  if (tensor.shape[rank - 1] > 1 && tensor.strides[rank - 1] != 1)
    return absl::InvalidArgumentError(
        absl::StrCat(argLabel(spec, index), ": innermost stride is ", tensor.strides[rank - 1],
                     " but must be 1 (the innermost dimension must be dense)"));
  if (spec.contiguous) {
    int64_t expected = 1;
    for (int d = rank - 1; d >= 0; --d) {
      // A stride of a dimension of extent 1 never multiplies a non-zero index.
      if (tensor.shape[d] > 1 && tensor.strides[d] != expected)
        return absl::InvalidArgumentError(
            absl::StrCat(argLabel(spec, index), " must be contiguous but dim ", d, " has stride ",
                         tensor.strides[d], " where a dense row-major view of shape ",
                         describeShape(tensor), " has ", expected));
      expected *= tensor.shape[d];
    }
  }
  int64_t elementBytes = dtypeSize(spec.dtype);
  int64_t vector = metadata.vectorBytes;
  if (vector > 1 && (tensor.shape[rank - 1] * elementBytes) % vector == 0) {
    uintptr_t address = reinterpret_cast<uintptr_t>(tensor.data);
    if (address % static_cast<uintptr_t>(vector) != 0)
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: data pointer %p is not a multiple of %d bytes; the kernel uses %d-byte vector "
          "accesses on views whose innermost extent is a multiple of %d bytes",
          argLabel(spec, index), tensor.data, vector, vector, vector));
    for (int d = 0; d < rank - 1; ++d) {
      int64_t strideBytes = tensor.strides[d] * elementBytes;
      if (tensor.shape[d] > 1 && strideBytes % vector != 0)
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s dim %d: stride %d elements (%d bytes) is not a multiple of %d bytes; the kernel "
            "uses %d-byte vector accesses on views whose innermost extent is a multiple of %d "
            "bytes",
            argLabel(spec, index), d, tensor.strides[d], strideBytes, vector, vector, vector));
    }
  }
  return absl::OkStatus();
}

absl::Status checkScalar(size_t index, const ArgSpec& spec, const ScalarArg& scalar) {
  // Within a family a scalar converts (an f64 value to an f32 slot, an i64 to an i32 one when
  // it fits), as a C call would; across families (float vs integer) it is an error.
  const bool sameFamily = isFloat(scalar.dtype) == isFloat(spec.dtype) &&
                          scalar.dtype != DType::kBool && spec.dtype != DType::kBool;
  if (sameFamily && !isFloat(spec.dtype)) {
    const int bits = int(dtypeSize(spec.dtype)) * 8;
    const int64_t lo = bits >= 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
    const int64_t hi = bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
    if (scalar.intValue < lo || scalar.intValue > hi)
      return absl::InvalidArgumentError(absl::StrCat(
          argLabel(spec, index), ": value ", scalar.intValue, " does not fit the signature's ",
          asAbsl(dtypeName(spec.dtype))));
  }
  if (scalar.dtype != spec.dtype && !sameFamily)
    return absl::InvalidArgumentError(
        absl::StrCat(argLabel(spec, index), ": scalar dtype ", asAbsl(dtypeName(scalar.dtype)),
                     " does not match the signature's ", asAbsl(dtypeName(spec.dtype))));
  if (spec.dtype == DType::kF16 || spec.dtype == DType::kBF16)
    return absl::InvalidArgumentError(
        absl::StrCat(argLabel(spec, index), ": ", asAbsl(dtypeName(spec.dtype)),
                     " scalars have no slot in the kernel ABI; pass them as f32"));
  return absl::OkStatus();
}

void putSlot(unsigned char* buffer, size_t& offset, const void* value, size_t bytes) {
  std::memset(buffer + offset, 0, 8);
  std::memcpy(buffer + offset, value, bytes);
  offset += 8;
}

}  // namespace

absl::Status Device::launch(const LoadedKernel& kernel, absl::Span<const KernelArg> args,
                            Stream stream) {
  const KernelMetadata& metadata = kernel.metadata();
  if (args.size() != metadata.args.size()) {
    std::vector<std::string> names;
    for (const ArgSpec& spec : metadata.args) names.push_back(spec.name);
    return absl::InvalidArgumentError(absl::StrCat(
        "wrong number of arguments: got ", args.size(), ", the kernel '", metadata.templateName,
        "' takes ", metadata.args.size(), " (", absl::StrJoin(names, ", "), ")"));
  }

  BoundSymbol symbols[kMaxShapeSymbols];
  int64_t symbolValues[kMaxShapeSymbols];
  int symbolCount = 0;
  size_t packedSize = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& spec = metadata.args[i];
    const KernelArg& arg = args[i];
    bool isView = spec.kind == ArgSpec::Kind::kView;
    if (isView != (arg.kind == KernelArg::Kind::kTensor))
      return absl::InvalidArgumentError(absl::StrCat(argLabel(spec, i), ": the signature takes ",
                                                     describeSpec(spec), " but got a ",
                                                     isView ? "scalar" : "tensor"));
    if (isView) {
      TJ_RETURN_IF_ERROR(
          checkView(metadata, i, spec, arg.tensor, symbols, symbolCount, symbolValues));
      packedSize += 8 * (1 + 2 * spec.dims.size());
    } else {
      TJ_RETURN_IF_ERROR(checkScalar(i, spec, arg.scalar));
      packedSize += 8;
    }
  }
  if (packedSize > kMaxPackedBytes)
    return absl::InvalidArgumentError(
        absl::StrCat("the kernel '", metadata.templateName, "' needs ", packedSize,
                     " bytes of arguments; the limit is ", kMaxPackedBytes));

  int64_t grid[3];
  static constexpr const char* kAxes[] = {"x", "y", "z"};
  bool empty = false;
  for (int axis = 0; axis < 3; ++axis) {
    const GridExpression& expression = kernel.grid()[axis];
    grid[axis] = expression.evaluate(symbolValues);
    if (grid[axis] == GridExpression::kUndefined)
      return absl::InvalidArgumentError(
          absl::StrCat("grid ", kAxes[axis], " '", expression.text(),
                       "' is undefined for these shapes (division by zero or overflow)"));
    if (grid[axis] < 0)
      return absl::InvalidArgumentError(absl::StrCat("grid ", kAxes[axis], " '", expression.text(),
                                                     "' is negative (", grid[axis],
                                                     ") for these shapes"));
    if (grid[axis] == 0) empty = true;
  }
  if (observer_) observer_->beforeLaunch(*this, kernel, args);
  if (!empty) TJ_RETURN_IF_ERROR(launchChecked(kernel, grid, args, stream));  // else no program
  if (observer_) observer_->afterLaunch(*this, kernel, args);
  return absl::OkStatus();
}

absl::Status Device::launchChecked(const LoadedKernel& kernel, const int64_t grid[3],
                                   absl::Span<const KernelArg> args, Stream stream) {
  const KernelMetadata& metadata = kernel.metadata();
  alignas(16) unsigned char buffer[kMaxPackedBytes];
  size_t offset = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& spec = metadata.args[i];
    if (spec.kind == ArgSpec::Kind::kView) {
      const TensorArg& tensor = args[i].tensor;
      putSlot(buffer, offset, &tensor.data, sizeof(void*));
      for (int d = 0; d < tensor.rank; ++d) putSlot(buffer, offset, &tensor.shape[d], 8);
      for (int d = 0; d < tensor.rank; ++d) putSlot(buffer, offset, &tensor.strides[d], 8);
      continue;
    }
    const ScalarArg& scalar = args[i].scalar;
    if (spec.dtype == DType::kF32) {
      float value = static_cast<float>(scalar.floatValue);
      putSlot(buffer, offset, &value, sizeof(value));
    } else if (spec.dtype == DType::kF64) {
      putSlot(buffer, offset, &scalar.floatValue, sizeof(double));
    } else {
      putSlot(buffer, offset, &scalar.intValue, sizeof(int64_t));
    }
  }
  return launchPacked(kernel, grid, buffer, offset, stream);
}

}  // namespace tilejit
