// Thread-block clusters (sm_90+): the programs of one cluster merge their partial results
// through each other's shared memory (DSMEM) instead of a round trip through global memory and
// a second kernel.
//
// A kernel emitted with TJ_CLUSTER_PROGRAMS = C runs in clusters of C programs along grid axis
// 2 (TJ_KERNEL_ENTRY declares __cluster_dims__(1, 1, C)); a program's rank in its cluster is
// blockIdx.z % C.
#pragma once

#include "tj/mma.h"
#include "tj/shared.h"

namespace tj {
namespace detail {

__device__ __forceinline__ unsigned clusterRank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

// The two halves of a cluster barrier, for a program that has work to do between its arrival
// and its wait: every thread of every program of the cluster arrives, then waits for all the
// others; what each wrote to its shared memory before arriving is visible to all of them
// after their wait (release/acquire).
__device__ __forceinline__ void clusterArrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void clusterWait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void clusterBarrier() {
  clusterArrive();
  clusterWait();
}

// The shared-memory address `local` (this program's) in program `rank` of the cluster.
__device__ __forceinline__ unsigned clusterAddress(const void* local, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(sharedAddress(local)), "r"(rank));
  return remote;
}

__device__ __forceinline__ float clusterLoad(unsigned address) {
  float value;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(value) : "r"(address) : "memory");
  return value;
}

// V (1, 2 or 4) floats at a cluster address aligned to V * 4 bytes.
template <int V>
__device__ __forceinline__ void clusterLoadVector(unsigned address, float (&values)[V]) {
  static_assert(V == 1 || V == 2 || V == 4, "clusterLoadVector: 1, 2 or 4 floats");
  if constexpr (V == 4)
    asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(values[0]), "=f"(values[1]), "=f"(values[2]), "=f"(values[3])
                 : "r"(address)
                 : "memory");
  else if constexpr (V == 2)
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];"
                 : "=f"(values[0]), "=f"(values[1])
                 : "r"(address)
                 : "memory");
  else
    values[0] = clusterLoad(address);
}

// The weights of C partial results of one row in their merge: exp(lse_p - max lse), which is
// 0 where lse_p is -inf (no token there); returns 1 / their sum, 0 where every LSE is -inf
// (then the shift is 0, not -inf: no -inf - -inf). Both merges take them from here.
template <int C>
__device__ __forceinline__ float lseWeights(const float (&lse)[C], float (&weight)[C]) {
  const float ninf = bitsToFloat(0xff800000u);
  float top = ninf;
#pragma unroll
  for (int p = 0; p < C; ++p) top = lse[p] > top ? lse[p] : top;
  const float shift = top == ninf ? 0.f : top;
  float sum = 0.f;
#pragma unroll
  for (int p = 0; p < C; ++p) {
    weight[p] = expImpl(lse[p] - shift);
    sum += weight[p];
  }
  return sum > 0.f ? 1.f / sum : 0.f;
}

// An mbarrier (8 bytes of this program's shared memory): wait until the phase of parity
// `parity` has completed, with acquire at cluster scope (what a partner wrote before its
// release arrival, or stored asynchronously with complete_tx on it, is visible after).
__device__ __forceinline__ void mbarrierWait(const unsigned long long* barrier, unsigned parity) {
  const unsigned address = sharedAddress(barrier);
  unsigned done = 0;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; "
        "selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(address), "r"(parity)
        : "memory");
  } while (!done);
}

// Clusters of 2 whose partials are tensor-core accumulators (and their LSEs one per row, in
// the same threads) merge by push: the first program to finish pushes its registers into a
// staging area of its partner's, and the last merges them with its own, in registers, and
// stores everything. No cluster barrier after the loops: the last program to finish (the
// kernel's critical path) neither waits for the other nor stages its own partial.
template <int C, typename X, typename Rows>
struct MergesByPush {
  static constexpr bool value = false;
};
template <int64_t M, int64_t N, int64_t... D>
struct MergesByPush<2, MmaTile<float, M, N>, MmaRows<float, D...>> {
  static constexpr bool value = true;
};

struct PushMergeSync {
  unsigned long long full;  // the partner's partial has landed in our stage (our arrival + its bytes)
  unsigned long long done;  // the merger is done with our shared memory (1 arrival)
  unsigned arrivals;        // rank 0's: programs that reached the merge
  unsigned order;           // ours: how many arrived before us (0: we push, 1: we merge)
};
__device__ __forceinline__ PushMergeSync& pushMergeSync() {
  __shared__ PushMergeSync sync;
  return sync;
}
// One thread's registers in 16-byte chunks, chunk-major (a warp's accesses to one chunk are
// contiguous).
template <int Chunks>
__device__ __forceinline__ uint4* pushMergeStage() {
  __shared__ uint4 stage[Chunks * TJ_THREADS];
  return stage;
}

// cluster_merge_store for clusters of 2 (MergesByPush): see there.
template <typename T, int R, int64_t M, int64_t N, int64_t... D>
__device__ __forceinline__ void pushMergeStore(const View<T, R>& view, const Index<R>& offset,
                                               const Index<R>& limit, const MmaTile<float, M, N>& partial,
                                               const MmaRows<float, D...>& lse, int64_t count) {
  static_assert(MmaRows<float, D...>::kSize == M, "cluster_merge_store: one LSE per row of the partial");
  using L = MmaLayout<M, N>;
  using LR = MmaRowsLayout<M>;
  constexpr int kWords = L::kRegs + LR::kRegs, kChunks = (kWords + 3) / 4;
  auto& sync = pushMergeSync();
  uint4* stage = pushMergeStage<kChunks>();
  // The merge's trace points here: entry, role decided, stored (the first: freed).
  trace::mark(trace::kMergeCopiesDone);
  const unsigned rank = clusterRank(), partner = rank ^ 1u;
  clusterWait();  // the partner's barriers and rank 0's count are set up
  if (threadId() == 0) {
    unsigned before;
    asm volatile("atom.shared::cluster.add.u32 %0, [%1], 1;"
                 : "=r"(before)
                 : "r"(clusterAddress(&sync.arrivals, 0))
                 : "memory");
    sync.order = before;
  }
  __syncthreads();
  trace::mark(trace::kMergeStaged);
  if (sync.order == 0) {
    // First: our partial and LSEs into the partner's stage, then stay until the merger has
    // taken its turn (it may still have to count itself in at rank 0's count).
    unsigned words[kChunks * 4] = {};
#pragma unroll
    for (int i = 0; i < L::kRegs; ++i) words[i] = __float_as_uint(partial.v[i]);
#pragma unroll
    for (int i = 0; i < LR::kRegs; ++i) words[L::kRegs + i] = __float_as_uint(lse.v[i]);
    // Asynchronous stores that count their bytes in at the partner's barrier: nothing to wait
    // for here, and the partner's wait sees them whole.
    const unsigned remote = clusterAddress(stage + threadId(), partner);
    const unsigned full = clusterAddress(&sync.full, partner);
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
                   ::"r"(remote + unsigned(c * TJ_THREADS * 16)), "r"(words[4 * c]), "r"(words[4 * c + 1]),
                   "r"(words[4 * c + 2]), "r"(words[4 * c + 3]), "r"(full)
                   : "memory");
    mbarrierWait(&sync.done, 0);
    trace::mark(trace::kMergeWritten);
    return;
  }
  // Last: take the partner's partial (usually here long since), merge, store, and free the
  // partner. Our barrier completes with our arrival and the partner's bytes, in either order.
  if (threadId() == 0)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sharedAddress(&sync.full)),
                 "r"(kChunks * 16 * TJ_THREADS)
                 : "memory");
  mbarrierWait(&sync.full, 0);
  unsigned words[kChunks * 4];
  const unsigned local = sharedAddress(stage + threadId());
#pragma unroll
  for (int c = 0; c < kChunks; ++c)
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(words[4 * c]), "=r"(words[4 * c + 1]), "=r"(words[4 * c + 2]), "=r"(words[4 * c + 3])
                 : "r"(local + unsigned(c * TJ_THREADS * 16))
                 : "memory");
  // Ranks at or past `count` hold no partition of the sequence: weight 0.
  const float ninf = bitsToFloat(0xff800000u);
  const bool mineCounts = int64_t(rank) < count, theirsCount = int64_t(partner) < count;
  float weight[LR::kRegs][2], inverse[LR::kRegs];  // per row: ours, the partner's
#pragma unroll
  for (int r = 0; r < LR::kRegs; ++r) {
    const float lses[2] = {mineCounts ? lse.v[r] : ninf,
                           theirsCount ? __uint_as_float(words[L::kRegs + r]) : ninf};
    inverse[r] = lseWeights<2>(lses, weight[r]);
  }
  MmaTile<T, M, N> merged;
#pragma unroll
  for (int i = 0; i < L::kRegs; ++i) {
    const int r = L::rowReg(i);
    const float value = (weight[r][0] * partial.v[i] + weight[r][1] * __uint_as_float(words[i])) * inverse[r];
    merged.v[i] = cast<T>(value);
  }
  store(view, offset, limit, merged);
  trace::mark(trace::kMergeWritten);
  // Relaxed: the partner only waits for our add at rank 0's count, which has returned; a
  // release here would wait for the output's stores.
  if (threadId() == 0)
    asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];" ::"r"(
                     clusterAddress(&sync.done, partner))
                 : "memory");
}

// cluster_merge_store in any cluster: every program stages its partial in its own shared
// memory, and after a cluster barrier each merges its slice of the columns from all of them.
template <int C, bool StageInPlaced, typename T, int R, typename X, typename Rows>
__device__ __forceinline__ void pullMergeStore(const View<T, R>& view, const Index<R>& offset,
                                               const Index<R>& limit, const X& partial, const Rows& lse,
                                               int64_t count) {
  static_assert(C >= 1 && C <= 16, "a cluster holds 1..16 programs");
  static_assert(X::kRank == 2 && R >= 2, "cluster_merge_store: a [rows, columns] tile over a view of rank >= 2");
  static_assert(IsSame<typename X::Element, float>::value && IsSame<typename Rows::Element, float>::value,
                "cluster_merge_store: f32 partials and LSEs");
  constexpr int M = X::dim(0), N = X::dim(1);
  static_assert(Rows::kSize == M, "cluster_merge_store: one LSE per row of the partial");
  static_assert(StageInPlaced || int64_t(M) * N * 4 <= TJ_SMEM_BYTES,
                "cluster_merge_store: partial larger than TJ_SMEM_BYTES");
  float* stage = reinterpret_cast<float*>(StageInPlaced ? detail::dynamicShared() : detail::scratch());
  __shared__ float lseStage[M];
  using E = detail::Elements<X>;
  using ER = detail::Elements<Rows>;
  // Over the placed tiles: copies still landing there (a prefetch past the last tile fills
  // its slot with zeros) complete first.
  if (StageInPlaced) asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();  // an earlier reader of the scratch or of the placed tiles may still be at it
  trace::mark(trace::kMergeCopiesDone);
#pragma unroll
  for (int i = 0; i < X::L::kRegs; ++i)
    if (E::owns(i)) stage[E::linear(i)] = partial.v[i];
#pragma unroll
  for (int i = 0; i < Rows::L::kRegs; ++i)
    if (ER::owns(i)) lseStage[ER::linear(i)] = lse.v[i];
  detail::clusterBarrier();
  trace::mark(trace::kMergeStaged);

  // This rank's columns, and the rows and columns the limits let through.
  constexpr int kColumns = (N + C - 1) / C;
  const int first = int(detail::clusterRank()) * kColumns;
  const long long rowOffset = offset.v[R - 2], columnOffset = offset.v[R - 1];
  long long base = 0;
  bool leadIn = true;
#pragma unroll
  for (int d = 0; d < R; ++d) {
    if (d < R - 2) leadIn = leadIn && offset.v[d] >= 0 && offset.v[d] < limit.v[d];
    base += offset.v[d] * view.stride[d];
  }
  const int ranks = count < 0 ? 0 : count > C ? C : int(count);
  const float ninf = bitsToFloat(0xff800000u);
  // Each thread merges items of V consecutive columns of one row: one LSE per rank and row,
  // one vector load per rank, one reciprocal and one store per item. (One column at a time,
  // the merge was ~1.2 us of instruction issue at the end of a 16 x 4K decode: bench/results/
  // 2026-12-02, s16 timeline.)
  constexpr int V = kColumns % 4 == 0 && N % 4 == 0 ? 4 : kColumns % 2 == 0 && N % 2 == 0 ? 2 : 1;
  constexpr int kGroups = kColumns / V;
  constexpr int kItems = (M * kGroups + TJ_THREADS - 1) / TJ_THREADS;  // per thread
  unsigned stageAt[C], lseAt[C];  // each rank's staged partial and LSEs, in the cluster window
#pragma unroll
  for (int p = 0; p < C; ++p) {
    stageAt[p] = detail::clusterAddress(stage, p);
    lseAt[p] = detail::clusterAddress(lseStage, p);
  }
  // All of this thread's reads of the partners' shared memory first, in one round trip; then
  // the program arrives at the cluster barrier's next phase - nobody reads its partners any
  // more - and merges, stores and waits for the others' arrivals only before it exits, so
  // the barrier's latency overlaps the merge instead of following it (a cluster's merge took
  // 1.45 us after its last loop end at 16 x 4K, 1.85 before: bench/results/2026-12-02, s17-c2).
  bool valid[kItems];
  float lses[kItems][C], values[kItems][C][V];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int item = detail::threadId() + k * TJ_THREADS;
    const int row = item / kGroups, column = first + (item % kGroups) * V;
    const long long r = rowOffset + row;
    valid[k] = leadIn && item < M * kGroups && column < N && r >= 0 && r < limit.v[R - 2];
#pragma unroll
    for (int p = 0; p < C; ++p) {
      lses[k][p] = ninf;
      if (valid[k] && p < ranks) {
        lses[k][p] = detail::clusterLoad(lseAt[p] + unsigned(row) * 4u);
        detail::clusterLoadVector<V>(stageAt[p] + unsigned(row * N + column) * 4u, values[k][p]);
      }
    }
  }
  detail::clusterArrive();
  const bool unitColumns = view.stride[R - 1] == 1;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (!valid[k]) continue;
    const int item = detail::threadId() + k * TJ_THREADS;
    const int row = item / kGroups, column = first + (item % kGroups) * V;
    const long long c = columnOffset + column;
    float weight[C], merged[V] = {};
    const float inverse = detail::lseWeights<C>(lses[k], weight);
#pragma unroll
    for (int p = 0; p < C; ++p) {
      if (lses[k][p] == ninf) continue;  // no token there: its values were never loaded
#pragma unroll
      for (int j = 0; j < V; ++j) merged[j] += weight[p] * values[k][p][j];
    }
    T* out = view.data + base + row * view.stride[R - 2] + column * view.stride[R - 1];
    T results[V];
#pragma unroll
    for (int j = 0; j < V; ++j) results[j] = cast<T>(merged[j] * inverse);
    constexpr int kBytes = V * int(sizeof(T));
    const bool whole = unitColumns && c >= 0 && c + V <= limit.v[R - 1] &&
                       reinterpret_cast<unsigned long long>(out) % kBytes == 0;
    if (whole) {
      *reinterpret_cast<detail::Words<kBytes>*>(out) = detail::pack<T, V>(results, 0);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j)
        if (c + j >= 0 && c + j < limit.v[R - 1]) out[j * view.stride[R - 1]] = results[j];
    }
  }
  trace::mark(trace::kMergeWritten);
  // Our shared memory stays until every program has read it.
  detail::clusterWait();
}

}  // namespace detail

// At the kernel's start in every program of a cluster kernel that merges: the merge by push
// sets up its barriers and count and arrives at the cluster barrier it waits for before its
// first access to the partner (so that wait finds everybody long arrived). Nothing otherwise.
template <int C, typename X, typename Rows>
__device__ __forceinline__ void cluster_merge_begin() {
  if constexpr (detail::MergesByPush<C, X, Rows>::value) {
    auto& sync = detail::pushMergeSync();
    if (detail::threadId() == 0) {
      sync.arrivals = 0;
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(detail::sharedAddress(&sync.full)),
                   "r"(1) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(detail::sharedAddress(&sync.done)),
                   "r"(1) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    detail::clusterArrive();
  }
}

// Merges the partial results of the cluster's programs and stores the merge: program p holds
// `partial` ([M, N], each row normalized) and `lse` ([M], natural log of each row's softmax
// sum; -inf where the row saw no token). The first `count` ranks' partials are weighted by
// exp(lse - max lse) per row; rows whose LSEs are all -inf get 0. Each program writes its own
// slice of the N columns (ceil(N / C) of them; by push, the last program all of them),
// converted to the view's element type, over the view's last two axes at `offset`, skipping
// elements past `limit`. Every program of the cluster must call it (it synchronizes the
// cluster), once, as its last use of shared memory - and no program may exit before, or
// others would read shared memory that is gone. A kernel that calls it calls
// cluster_merge_begin at its start.
// StageInPlaced: the partial is staged at the start of the kernel's dynamic shared memory,
// over the placed tiles (the emitter checked that they hold it), instead of the scratch, so
// the scratch need not be sized for it: a cluster kernel keeps the occupancy of one without.
template <int C, bool StageInPlaced, typename T, int R, typename X, typename Rows>
__device__ __forceinline__ void cluster_merge_store(const View<T, R>& view, const Index<R>& offset,
                                                    const Index<R>& limit, const X& partial,
                                                    const Rows& lse, int64_t count) {
  if constexpr (detail::MergesByPush<C, X, Rows>::value)
    detail::pushMergeStore(view, offset, limit, partial, lse, count);
  else
    detail::pullMergeStore<C, StageInPlaced>(view, offset, limit, partial, lse, count);
}

}  // namespace tj
