// TJ_TRACE=1 (a measurement switch, like TJ_PREFETCH_L1: `-DTJ_TRACE=1` through
// TILEJIT_NVRTC_OPTIONS): thread 0 of every program reads %globaltimer (ns, one clock for the
// whole GPU) at fixed points of a kernel's life and prints them in one line at its end:
//
//   tj-trace <kernel> <x> <y> <z> <smid> <entry> <first scalar> <first lookup> <first wait>
//            <second wait> <epilogue> <merge: copies done> <merge: partners staged>
//            <merge: written> <exit>
//
// entry and exit absolute, the others as ns after entry (0: not reached). A point that
// follows a load reads the timer only once the loaded value is there (the value is an input
// of the timer's asm), so "first scalar" is when a decode kernel's sequence length arrived,
// "first lookup" its first block-table entry, the waits when the first two copied tiles were
// in every thread's hands; the merge points are those of tj::cluster_merge_store (after its
// wait for the copies still landing, after its first cluster barrier, once its stores are
// issued, before the wait of its second).
// bench/decode_timeline.py runs a kernel this way. Off (0), every
// hook is empty and the emitted kernels compile as before.
#pragma once

#ifndef TJ_TRACE
#define TJ_TRACE 0
#endif

namespace tj {
namespace trace {

enum Point {
  kEntry,
  kFirstScalar,
  kFirstLookup,
  kFirstWait,
  kSecondWait,
  kEpilogue,
  kMergeCopiesDone,
  kMergeStaged,
  kMergeWritten,
  kExit,
  kPoints
};

#if TJ_TRACE
extern "C" __device__ int vprintf(const char*, const char*);

__device__ __forceinline__ unsigned long long* stamps() {
  __shared__ unsigned long long stamp[kPoints];
  return stamp;
}
__device__ __forceinline__ unsigned long long nowAfter(unsigned dependency) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : "r"(dependency) : "memory");
  return t;
}
// The first time thread 0 reaches `point` (after `dependency` is loaded).
__device__ __forceinline__ void mark(Point point, unsigned dependency = 0) {
  if (threadIdx.x != 0 || stamps()[point] != 0) return;
  stamps()[point] = nowAfter(dependency);
}
// A wait for copied tiles: the first and the second.
__device__ __forceinline__ void markWait() {
  if (threadIdx.x != 0) return;
  mark(stamps()[kFirstWait] == 0 ? kFirstWait : kSecondWait);
}
__device__ __forceinline__ void begin() {
  if (threadIdx.x != 0) return;
  for (int p = 0; p < kPoints; ++p) stamps()[p] = 0;
  stamps()[kEntry] = nowAfter(0);
}
__device__ __forceinline__ void end(const char* kernel) {
  if (threadIdx.x != 0) return;
  unsigned long long* s = stamps();
  s[kExit] = nowAfter(0);
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  struct {
    const char* kernel;
    unsigned x, y, z, sm;
    unsigned long long entry;
    long long d[kPoints - 2];
    unsigned long long exit;
  } line{kernel, blockIdx.x, blockIdx.y, blockIdx.z, smid, s[kEntry], {}, s[kExit]};
  for (int p = 1; p < kPoints - 1; ++p) line.d[p - 1] = s[p] ? (long long)(s[p] - s[kEntry]) : 0;
  static_assert(kPoints == 10, "one format field per point");
  vprintf("tj-trace %s %u %u %u %u %llu %lld %lld %lld %lld %lld %lld %lld %lld %llu\n",
          reinterpret_cast<const char*>(&line));
}
#else
__device__ __forceinline__ void mark(Point, unsigned = 0) {}
__device__ __forceinline__ void markWait() {}
__device__ __forceinline__ void begin() {}
__device__ __forceinline__ void end(const char*) {}
#endif

}  // namespace trace
}  // namespace tj
