// The CPU backend: a kernel is a shared object exporting
//   extern "C" void entry(const void* args, const int64_t program_id[3],
//                         const int64_t num_programs[3]);
// which runs one program. Programs are independent, so a launch spreads them over a persistent
// pool of host threads and returns when all are done.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "runtime/backends/cpu/cpu_device.h"
#include "runtime/device.h"
#include "runtime/device_registry.h"
#include "support/status.h"

namespace tilejit {
namespace {

using CpuEntry = void (*)(const void* args, const int64_t programId[3],
                          const int64_t numPrograms[3]);
// Optional in a kernel object (the AMD wave model's, whose workgroups can deadlock): 1 and the
// message if a program failed since the last call, which clears it.
using EntryError = int (*)(char* message, unsigned long capacity);
constexpr char kEntryErrorSymbol[] = "tilejit_entry_error";

using Grid = std::array<GridExpression, 3>;

// Runs `count` independent jobs on a fixed set of threads plus the caller. Dispatch uses a
// function pointer and a context, not std::function, so that a launch does not allocate.
class ThreadPool {
 public:
  using Job = void (*)(const void* context, int64_t index);

  explicit ThreadPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { workerLoop(); });
  }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  void run(Job job, const void* context, int64_t count) {
    std::lock_guard<std::mutex> launchLock(launchMutex_);  // one launch at a time
    if (count <= 1 || workers_.empty()) {
      for (int64_t i = 0; i < count; ++i) job(context, i);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = job;
      context_ = context;
      count_ = count;
      next_.store(0, std::memory_order_relaxed);
      busy_ = static_cast<int>(workers_.size());
      ++generation_;
    }
    wake_.notify_all();
    drain();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
  }

 private:
  void drain() {
    for (int64_t i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1)) job_(context_, i);
  }

  void workerLoop() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      lock.unlock();
      drain();
      lock.lock();
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex launchMutex_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  bool stopping_ = false;
  uint64_t generation_ = 0;
  int busy_ = 0;
  Job job_ = nullptr;
  const void* context_ = nullptr;
  int64_t count_ = 0;
  std::atomic<int64_t> next_{0};
};

class CpuKernel : public LoadedKernel {
 public:
  CpuKernel(KernelMetadata metadata, std::array<GridExpression, 3> grid, void* handle, int fd,
            CpuEntry entry, EntryError error)
      : LoadedKernel(std::move(metadata), std::move(grid)),
        handle_(handle),
        fd_(fd),
        entry_(entry),
        error_(error) {}
  ~CpuKernel() override {
    dlclose(handle_);
    if (fd_ >= 0) close(fd_);
  }
  CpuEntry entry() const { return entry_; }
  EntryError error() const { return error_; }

 private:
  void* handle_;
  // The memfd stays open while the library is loaded: glibc recognises loaded libraries by
  // path, so "/proc/self/fd/N" must not name another library while this one is alive.
  int fd_;
  CpuEntry entry_;
  EntryError error_;
};

absl::Status writeAll(int fd, std::string_view bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(
          absl::StrCat("writing a kernel object failed: ", std::strerror(errno)));
    }
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// dlopen()s `binary` from an anonymous memory file; returns the handle and the fd to keep.
absl::StatusOr<std::pair<void*, int>> openFromMemory(std::string_view binary) {
  int fd = memfd_create("tilejit-kernel", MFD_CLOEXEC);
  if (fd < 0) return absl::UnavailableError(absl::StrCat("memfd_create: ", std::strerror(errno)));
  if (absl::Status status = writeAll(fd, binary); !status.ok()) {
    close(fd);
    return status;
  }
  // A library loaded earlier from the same fd number may still be resident (objects with
  // STB_GNU_UNIQUE symbols are never unloaded); move to a fresh number until the path is free.
  for (int attempt = 0; attempt < 64; ++attempt) {
    std::string path = absl::StrCat("/proc/self/fd/", fd);
    if (void* stale = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
      dlclose(stale);
      int moved = fcntl(fd, F_DUPFD_CLOEXEC, fd + 1);
      close(fd);
      if (moved < 0) return absl::UnavailableError("fcntl(F_DUPFD) failed");
      fd = moved;
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      std::string error = dlerror();
      close(fd);
      return absl::InvalidArgumentError(
          absl::StrCat("dlopen of the kernel object failed: ", error));
    }
    return std::make_pair(handle, fd);
  }
  close(fd);
  return absl::UnavailableError("no free /proc/self/fd path for the kernel object");
}

absl::StatusOr<std::pair<void*, int>> openFromTempFile(std::string_view binary) {
  const char* directory = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(directory && *directory ? directory : "/tmp", "/tilejit-kernel-XXXXXX.so");
  int fd = mkstemps(pattern.data(), 3);
  if (fd < 0)
    return absl::UnavailableError(absl::StrCat("mkstemps(", pattern, "): ", std::strerror(errno)));
  absl::Status status = writeAll(fd, binary);
  close(fd);
  void* handle = nullptr;
  std::string error;
  if (status.ok()) {
    handle = dlopen(pattern.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) error = dlerror();
  }
  unlink(pattern.c_str());  // the mapping outlives the name
  if (!status.ok()) return status;
  if (!handle)
    return absl::InvalidArgumentError(absl::StrCat("dlopen of the kernel object failed: ", error));
  return std::make_pair(handle, -1);
}

struct LaunchContext {
  CpuEntry entry;
  const void* args;
  int64_t grid[3];
};

void runProgram(const void* opaque, int64_t index) {
  const auto* context = static_cast<const LaunchContext*>(opaque);
  // x varies fastest, as on a GPU.
  int64_t programId[3] = {index % context->grid[0], (index / context->grid[0]) % context->grid[1],
                          index / (context->grid[0] * context->grid[1])};
  context->entry(context->args, programId, context->grid);
}

class CpuDevice : public Device {
 public:
  CpuDevice(std::string backend, std::string target)
      : backend_(std::move(backend)),
        target_(std::move(target)),
        pool_(std::max(1u, std::thread::hardware_concurrency())) {}

  std::string name() const override {
    return backend_ == "cpu" ? absl::StrCat("host CPU (", pool_.threads(), " threads)")
                             : absl::StrCat(target_, " wave model on the host CPU (",
                                            pool_.threads(), " threads)");
  }
  std::string target() const override { return target_; }

  absl::StatusOr<std::unique_ptr<LoadedKernel>> load(const KernelMetadata& metadata,
                                                     std::string_view binary) override {
    if (metadata.backend != backend_ || metadata.target != target_)
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", metadata.templateName, "' was compiled for backend '", metadata.backend,
          "' (target ", metadata.target, "); this device runs only '", backend_, "' kernels for ",
          target_));
    TJ_ASSIGN_OR_RETURN(Grid grid, parseGrid(metadata));
    absl::StatusOr<std::pair<void*, int>> opened = openFromMemory(binary);
    if (!opened.ok() && absl::IsUnavailable(opened.status())) opened = openFromTempFile(binary);
    if (!opened.ok()) return opened.status();
    auto [handle, fd] = *opened;
    dlerror();
    void* address = dlsym(handle, metadata.entry.c_str());
    if (!address) {
      const char* error = dlerror();
      std::string message =
          absl::StrCat("kernel object for '", metadata.templateName, "' does not export '",
                       metadata.entry, "': ", error ? error : "null symbol");
      dlclose(handle);
      if (fd >= 0) close(fd);
      return absl::InvalidArgumentError(message);
    }
    auto error = reinterpret_cast<EntryError>(dlsym(handle, kEntryErrorSymbol));
    return std::unique_ptr<LoadedKernel>(std::make_unique<CpuKernel>(
        metadata, std::move(grid), handle, fd, reinterpret_cast<CpuEntry>(address), error));
  }

  absl::StatusOr<void*> allocate(size_t bytes) override {
    // aligned_alloc wants a multiple of the alignment; 256 matches what cuMemAlloc gives.
    size_t rounded = (std::max<size_t>(bytes, 1) + 255) / 256 * 256;
    void* pointer = std::aligned_alloc(256, rounded);
    if (!pointer)
      return absl::ResourceExhaustedError(
          absl::StrCat("aligned_alloc of ", bytes, " bytes failed"));
    return pointer;
  }
  absl::Status free(void* pointer) override {
    std::free(pointer);
    return absl::OkStatus();
  }
  absl::Status copyToDevice(void* dst, const void* src, size_t bytes) override {
    if (bytes) std::memcpy(dst, src, bytes);
    return absl::OkStatus();
  }
  absl::Status copyToHost(void* dst, const void* src, size_t bytes) override {
    if (bytes) std::memcpy(dst, src, bytes);
    return absl::OkStatus();
  }
  absl::Status synchronize() override { return absl::OkStatus(); }

  absl::StatusOr<std::vector<double>> time(const std::function<absl::Status()>& work, int warmup,
                                           int iterations) override {
    for (int i = 0; i < warmup; ++i) TJ_RETURN_IF_ERROR(work());
    std::vector<double> milliseconds;
    milliseconds.reserve(std::max(iterations, 0));
    for (int i = 0; i < iterations; ++i) {
      auto start = std::chrono::steady_clock::now();
      TJ_RETURN_IF_ERROR(work());
      std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
      milliseconds.push_back(elapsed.count());
    }
    return milliseconds;
  }

 protected:
  absl::Status launchPacked(const LoadedKernel& kernel, const int64_t grid[3],
                            const void* packedArgs, size_t /*packedSize*/,
                            Stream /*stream*/) override {
    const auto& cpuKernel = static_cast<const CpuKernel&>(kernel);
    LaunchContext context{cpuKernel.entry(), packedArgs, {grid[0], grid[1], grid[2]}};
    int64_t count = 0;
    if (__builtin_mul_overflow(grid[0], grid[1], &count) ||
        __builtin_mul_overflow(count, grid[2], &count))
      return absl::InvalidArgumentError(
          absl::StrCat("grid ", grid[0], " x ", grid[1], " x ", grid[2], " overflows 64 bits"));
    pool_.run(&runProgram, &context, count);
    if (char message[2048]; cpuKernel.error() && cpuKernel.error()(message, sizeof(message)))
      return absl::InternalError(absl::StrCat("kernel '", kernel.metadata().entry, "' failed: ", message));
    return absl::OkStatus();
  }

 private:
  std::string backend_;
  std::string target_;
  ThreadPool pool_;
};

}  // namespace

std::unique_ptr<Device> createCpuDevice() { return std::make_unique<CpuDevice>("cpu", "host"); }

std::unique_ptr<Device> createHostEntryDevice(std::string backend, std::string target) {
  return std::make_unique<CpuDevice>(std::move(backend), std::move(target));
}

// Last in the search: it always has a device.
DeviceBackend cpuDeviceBackend() {
  return {"cpu", 1000, [](std::string_view target) { return target == "host"; },
          [] { return absl::StatusOr<std::unique_ptr<Device>>(createCpuDevice()); }};
}

}  // namespace tilejit
