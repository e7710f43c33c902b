#include "tools/harness/host_tensor.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "support/half.h"
#include "support/status.h"
#include "templates/device/cpu/tj/types.h"  // fp8 codes (checked against OCP: fp8_cpu_test)

namespace tilejit {

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape)
    : dtype(dtype), shape(std::move(shape)) {
  bytes.resize(size_t(numel() * dtypeSize(dtype)));
}

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

double HostTensor::get(int64_t i) const {
  const uint8_t* p = bytes.data() + i * dtypeSize(dtype);
  switch (dtype) {
    case DType::kF16: { uint16_t b; std::memcpy(&b, p, 2); return f16ToFloat(b); }
    case DType::kBF16: { uint16_t b; std::memcpy(&b, p, 2); return bf16ToFloat(b); }
    case DType::kF32: { float f; std::memcpy(&f, p, 4); return f; }
    case DType::kF64: { double f; std::memcpy(&f, p, 8); return f; }
    case DType::kI8: return int8_t(*p);
    case DType::kU8: case DType::kBool: return *p;
    case DType::kI32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::kI64: { int64_t v; std::memcpy(&v, p, 8); return double(v); }
    case DType::kF8E4M3FN: return tj::toFloat(tj::f8e4m3{*p});
    case DType::kF8E5M2: return tj::toFloat(tj::f8e5m2{*p});
  }
  return 0;
}

void HostTensor::set(int64_t i, double value) {
  uint8_t* p = bytes.data() + i * dtypeSize(dtype);
  switch (dtype) {
    case DType::kF16: { uint16_t b = floatToF16(float(value)); std::memcpy(p, &b, 2); break; }
    case DType::kBF16: { uint16_t b = floatToBf16(float(value)); std::memcpy(p, &b, 2); break; }
    case DType::kF32: { float f = float(value); std::memcpy(p, &f, 4); break; }
    case DType::kF64: std::memcpy(p, &value, 8); break;
    case DType::kI8: *p = uint8_t(int8_t(value)); break;
    case DType::kU8: case DType::kBool: *p = uint8_t(value); break;
    case DType::kI32: { int32_t v = int32_t(value); std::memcpy(p, &v, 4); break; }
    case DType::kI64: { int64_t v = int64_t(value); std::memcpy(p, &v, 8); break; }
    case DType::kF8E4M3FN: *p = tj::toF8E4M3(float(value)).bits; break;
    case DType::kF8E5M2: *p = tj::toF8E5M2(float(value)).bits; break;
  }
}

void HostTensor::fillNormal(std::mt19937_64& rng, double stddev) {
  std::normal_distribution<double> normal(0.0, stddev);
  for (int64_t i = 0; i < numel(); ++i) set(i, normal(rng));
}

void HostTensor::fillNaN() {
  for (int64_t i = 0; i < numel(); ++i) set(i, std::numeric_limits<double>::quiet_NaN());
}

absl::StatusOr<DeviceTensor> DeviceTensor::upload(Device& device, const HostTensor& host) {
  size_t bytes = std::max<size_t>(host.bytes.size(), 16);
  TJ_ASSIGN_OR_RETURN(void* data, device.allocate(bytes));
  DeviceTensor tensor(device, data, host.dtype, host.shape, host.bytes.size());
  if (!host.bytes.empty())
    TJ_RETURN_IF_ERROR(device.copyToDevice(data, host.bytes.data(), host.bytes.size()));
  return tensor;
}

DeviceTensor::DeviceTensor(DeviceTensor&& other) noexcept
    : device_(other.device_), data_(other.data_), dtype_(other.dtype_),
      shape_(std::move(other.shape_)), bytes_(other.bytes_) {
  other.data_ = nullptr;
}

DeviceTensor::~DeviceTensor() {
  if (data_) (void)device_->free(data_);
}

absl::Status DeviceTensor::download(HostTensor& host) const {
  host.dtype = dtype_;
  host.shape = shape_;
  host.bytes.resize(bytes_);
  if (bytes_ == 0) return absl::OkStatus();
  return device_->copyToHost(host.bytes.data(), data_, bytes_);
}

absl::Status DeviceTensor::overwrite(const HostTensor& host) {
  if (host.bytes.size() != bytes_) return absl::InvalidArgumentError("overwrite: size differs");
  if (bytes_ == 0) return absl::OkStatus();
  return device_->copyToDevice(data_, host.bytes.data(), bytes_);
}

TensorArg DeviceTensor::arg() const {
  TensorArg arg;
  arg.data = data_;
  arg.dtype = dtype_;
  arg.rank = int(shape_.size());
  int64_t stride = 1;
  for (int d = arg.rank - 1; d >= 0; --d) {
    arg.shape[d] = shape_[d];
    arg.strides[d] = stride;
    stride *= shape_[d];
  }
  return arg;
}

int64_t pagedCacheIndex(const std::vector<int64_t>& shape, bool isKey, int64_t block,
                        int64_t slot, int64_t head, int64_t d) {
  if (shape.size() == 4) return ((block * shape[1] + slot) * shape[2] + head) * shape[3] + d;
  const int64_t x = shape[4];
  if (isKey) return (((block * shape[1] + head) * shape[2] + d / x) * shape[3] + slot) * x + d % x;
  return (((block * shape[1] + head) * shape[2] + slot / x) * shape[3] + d) * x + slot % x;
}

void fillPagedBlockTable(HostTensor& table, const std::vector<int64_t>& seqLens, int64_t blockSize,
                         const std::vector<int64_t>& blockOrder) {
  const int64_t maxBlocksPerSeq = table.shape[1], unused = int64_t(blockOrder.size());
  int64_t next = 0;
  for (size_t s = 0; s < seqLens.size(); ++s) {
    const int64_t row = int64_t(s) * maxBlocksPerSeq;
    for (int64_t b = 0; b < maxBlocksPerSeq; ++b)
      table.set(row + b, double(blockOrder[size_t(unused - 1 - (b % 3))]));
    for (int64_t b = 0; b < (seqLens[s] + blockSize - 1) / blockSize; ++b)
      table.set(row + b, double(blockOrder[size_t(next++)]));
  }
}

ErrorReport compare(const HostTensor& out, const std::vector<double>& ref,
                    const std::vector<bool>& selected) {
  ErrorReport report;
  double maxError = 0, maxRef = 0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (!selected.empty() && !selected[i]) continue;
    ++report.compared;
    double value = out.get(i);
    if (std::isnan(value) != std::isnan(ref[i]) ||
        (std::isinf(ref[i]) && value != ref[i])) {
      ++report.nanCount;
      continue;
    }
    if (std::isnan(value) || std::isinf(ref[i])) continue;
    maxError = std::max(maxError, std::fabs(value - ref[i]));
    maxRef = std::max(maxRef, std::fabs(ref[i]));
  }
  report.relativeLinf = report.nanCount ? std::numeric_limits<double>::infinity()
                                        : maxError / std::max(maxRef, 1e-30);
  // Relative error (value - ref) / ref, averaged over elements not near zero (where rounding of
  // tiny values dominates it): rounding averages out, a systematic scale does not.
  double biasSum = 0;
  int64_t biasCount = 0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (!selected.empty() && !selected[i]) continue;
    double value = out.get(i);
    if (!std::isfinite(value) || !std::isfinite(ref[i]) || std::fabs(ref[i]) < 0.05 * maxRef) continue;
    biasSum += (value - ref[i]) / ref[i];
    ++biasCount;
  }
  report.meanRelativeBias = biasCount ? biasSum / double(biasCount) : 0;
  return report;
}

}  // namespace tilejit
