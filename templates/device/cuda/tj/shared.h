// Tiles placed in shared memory by tj-place-dot-operands-in-shared-memory.
//
// A placed load copies global memory straight into a shared buffer with cp.async (16 bytes
// per copy, zero-filled where masked) and returns at once; the dot that reads the tile waits
// for exactly the copies it needs (commit groups are counted in AsyncCopies), so a tile
// prefetched for the next loop iteration stays in flight during this one's math and costs no
// registers. Placed buffers live in the kernel's dynamic shared memory, at offsets the
// emitter assigns. Each placed buffer has `Slots` slots, used in turn: 2 for a loop-carried
// chain (the tile in use and the one in flight), one more per tile a deeper prefetch carries.
//
// Reuse of a slot is safe: a slot is only rewritten after the dot that read its previous
// tile, and before the copy, a barrier separates that dot's reads from the new writes - the
// dot's own (when it returns a canonical tile, see dot.h), the wait of a later dot, or one
// taken here when the buffer's reads are still pending (an mma accumulator returns without a
// barrier).
#pragma once

#include "tj/memory.h"

namespace tj {

// Row-major [R, C] in shared memory (rows of whole 16-byte pieces: the placement pass only
// places such tiles), laid out so that the 8 rows an ldmatrix reads at one column fall in 8
// distinct bank groups (16-byte units of a 128-byte line) and, for rows of an even number of
// pieces, every row starts 32-byte aligned like the global rows copied into it. A row stride
// of an odd number of pieces spreads 8 rows over the banks but puts every other row across
// shared sectors, and L1 then asked L2 for 1.5 sectors per sector that cp.async copied
// (Nsight Compute, bench/results/2026-12-01). So rows of an even number of pieces take a
// stride of 2 mod 4 pieces (8 rows start at 4 distinct even units, twice) and rows 4..7 of
// each 8 swap the two pieces of every 32-byte sector (the second four rows start on the odd
// units); copies still move whole sectors. Rows of an odd number of pieces keep that odd
// stride. Rows of whole 128-byte lines (heads 64, 128, 192, 256 in 16-bit) need no pad at
// all: piece p of row r goes to piece p ^ (r % 8) of its line, so any 8 consecutive rows of a
// column fall in 8 distinct units and the two pieces of a sector stay in one sector (the XOR
// only swaps them or moves the pair). Unpadded rows are what lets a third 64-token K/V
// program fit an SM at head 128 (75 KB instead of 83): 3-6 % faster at large grids
// (bench/results/2026-12-01/s9-swizzle). The emitter sizes placed buffers by the same rule
// (placedBufferBytes).
// Tiles of fp8 codes (1-byte elements, 16 per piece) follow the same rules: a 128-byte row
// of head 128 takes the XOR layout, a 64-byte one the swapped, padded one.
template <typename T, int64_t R, int64_t C>
struct SharedTile {
  static_assert(sizeof(T) == 2 || kIsFp8<T>, "shared tiles hold 16-bit elements or fp8 codes");
  static constexpr int kPiece = int(16 / sizeof(T));  // elements per 16-byte piece
  static_assert(int(C) % kPiece == 0, "shared tiles hold rows of whole 16-byte pieces");
  static constexpr int kPieces = int(C) / kPiece;
  static constexpr bool kXor = kPieces % 8 == 0;
  static constexpr bool kSwapped = !kXor && kPieces % 2 == 0;
  static constexpr int kStride = kSwapped && kPieces % 4 == 0 ? int(C) + 2 * kPiece : int(C);
  static constexpr int kElems = int(R) * kStride;
  T* data;
  int group;   // the commit group that fills it
  int buffer;  // the placed buffer it is a slot of

  // Element offset of (row, aligned + within) from `data`. `aligned` must be a multiple of two
  // pieces (a 32-byte sector; `within` may be any column). In the padded layouts only
  // `within` is permuted, so an `aligned` known at compile time stays an immediate of the
  // address (ldmatrix addresses are one register per thread); in the XOR layout the piece
  // index within the line is permuted, which costs one logic op where it is not constant.
  static __device__ __forceinline__ int offset(int row, int aligned, int within) {
    if constexpr (kXor) {
      // XOR on the element index: bits of the piece within its line (kPiece is a power of 2).
      return row * kStride + ((aligned + within) ^ ((row & 7) * kPiece));
    } else if constexpr (kSwapped) {
      return row * kStride + aligned + (within ^ ((row & 4) * (kPiece / 4)));
    } else {
      return row * kStride + aligned + within;
    }
  }
};

template <typename X>
struct IsSharedTile { static constexpr bool value = false; };
template <typename T, int64_t R, int64_t C>
struct IsSharedTile<SharedTile<T, R, C>> { static constexpr bool value = true; };

constexpr int kMaxSharedBuffers = 8;

#ifndef TJ_PAGED_ROW_LANES
#define TJ_PAGED_ROW_LANES 8
#endif

// The kernel's record of asynchronous copies, a local of the kernel body.
struct AsyncCopies {
  int committed = 0;
  int uses[kMaxSharedBuffers] = {};
  // Buffers a dot read since the last barrier of this record (bit b: buffer b).
  unsigned readsPending = 0;

  // Set for the next wait by the emitter where it proved that at least this many groups were
  // committed after the ones the wait is for (a wait that leaves that many pending still
  // waits for those): the distance is then a constant and the choice below folds away.
  int knownNewer = -1;

  __device__ __forceinline__ AsyncCopies& newerAtLeast(int groups) {
    knownNewer = groups;
    return *this;
  }
  __device__ __forceinline__ int commit() {
    asm volatile("cp.async.commit_group;" ::: "memory");
    return committed++;
  }
  // Waits for this thread's copies of `group`, then for every thread's (a barrier).
  __device__ __forceinline__ void waitFor(int group) {
    // Groups committed after it may stay in flight.
    const int newer = knownNewer >= 0 ? knownNewer : committed - 1 - group;
    knownNewer = -1;
    // Where the compiler cannot prove the distance (a tile carried through a loop), a jump
    // table (BRX) would pick the wait; the distances of a loop carrying two chains one or
    // two tiles ahead are tried first.
    if (newer == 2) {
      asm volatile("cp.async.wait_group 2;" ::: "memory");
    } else if (newer == 4) {
      asm volatile("cp.async.wait_group 4;" ::: "memory");
    } else if (newer == 1) {
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else if (newer <= 0) {
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    } else switch (newer) {
      case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
      case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
      case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
      default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;
    }
    __syncthreads();
    readsPending = 0;
    trace::markWait();
  }
  __device__ __forceinline__ void markRead(int buffer) { readsPending |= 1u << buffer; }
  // Before a copy overwrites a slot of `buffer`: no thread may still be reading the buffer
  // (any of its slots: one bit per buffer, conservative when it has more than two).
  __device__ __forceinline__ void settleReads(int buffer) {
    if (readsPending & (1u << buffer)) {
      __syncthreads();
      readsPending = 0;
    }
  }
};

namespace detail {

// The kernel's dynamic shared memory; the emitter lays placed buffers out in it (Offset) and
// the runtime launches with their total size.
__device__ __forceinline__ unsigned char* dynamicShared() {
  extern __shared__ __align__(128) unsigned char tj_dynamic_shared[];
  return tj_dynamic_shared;
}

template <int Buffer, int Slots, int Offset, typename T, int64_t R, int64_t C>
__device__ __forceinline__ SharedTile<T, R, C> takeSlot(AsyncCopies& async) {
  static_assert(Buffer >= 0 && Buffer < kMaxSharedBuffers, "shared buffer id out of range");
  static_assert(Slots >= 1 && Slots <= 4, "one to four slots per shared buffer");
  static_assert(Offset % 128 == 0, "shared buffers start on 128-byte lines (placedBufferBytes)");
  using S = SharedTile<T, R, C>;
  T* base = reinterpret_cast<T*>(dynamicShared() + Offset);
  async.settleReads(Buffer);
  const int slot = Slots == 1 ? 0 : int(unsigned(async.uses[Buffer]++) % unsigned(Slots));
  return S{base + slot * S::kElems, 0, Buffer};
}

// *p where `pred` holds, else 0, as one predicated load. Written in PTX so that the row
// copies of paged_rows stay branch-free: left to the compiler, a guarded table lookup
// may become a branch per row, and then each row's lookup waits for the one before it (the
// latency of a whole tile at one program per SM: bench/results/2026-12-01/s9-swizzle).
template <typename TI>
__device__ __forceinline__ TI loadIf(const TI* p, bool pred) {
  static_assert(sizeof(TI) == 4 || sizeof(TI) == 8, "loadIf: 32- or 64-bit entries");
  if constexpr (sizeof(TI) == 4) {
    unsigned v = 0;
    asm("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q ld.global.b32 %0, [%1]; }"
        : "+r"(v) : "l"(p), "r"(int(pred)));
    return TI(v);
  } else {
    unsigned long long v = 0;
    asm("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q ld.global.b64 %0, [%1]; }"
        : "+l"(v) : "l"(p), "r"(int(pred)));
    return TI(v);
  }
}

// p, as a value the compiler cannot see through: an address worked out once stays one
// register, instead of being folded back into each use's index arithmetic (NVVM had
// recomputed a table row's address in every lookup: 5 instructions where 1 does).
template <typename P>
__device__ __forceinline__ P* opaque(P* p) {
  asm("mov.b64 %0, %0;" : "+l"(p));
  return p;
}

// A pointer into shared memory as a 32-bit shared-window address (cp.async, ldmatrix).
__device__ __forceinline__ unsigned sharedAddress(const void* p) {
  unsigned a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}

// 16 bytes global -> shared (a 32-bit shared-window address); src_bytes 0 writes zeros and
// reads nothing. No "memory" clobber: loads of block tables may be scheduled across copies
// (ordering against shared-memory readers comes from the barriers around them).
__device__ __forceinline__ void cpAsync16(unsigned dst, const void* src, int srcBytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(srcBytes));
}
__device__ __forceinline__ void cpAsync16(void* dst, const void* src, int srcBytes) {
  cpAsync16(sharedAddress(dst), src, srcBytes);
}

}  // namespace detail

// How paged_load_shared_rows spreads a [BN, D] tile of T over the threads: kLanes consecutive
// threads share a row, each copying every kLanes-th 16-byte piece, so one copy instruction
// of a warp covers whole 128-byte lines of 32 / kLanes rows (fewer L2 requests than half
// lines); a thread handles one row per pass. TJ_PAGED_ROW_LANES (default 8: 128 bytes) is
// there for measurements.
template <typename T, int64_t BN, int64_t D>
struct PagedCopyShape {
  static constexpr int kX = int(16 / sizeof(T));
  static_assert(D % kX == 0, "paged_load_shared_rows: rows are whole 16-byte pieces");
  static constexpr int kRowPieces = int(D) / kX;
  static constexpr int kLanesWanted = TJ_PAGED_ROW_LANES < kRowPieces ? TJ_PAGED_ROW_LANES : kRowPieces;
  static constexpr int kLanes = kLanesWanted < TJ_THREADS ? kLanesWanted : TJ_THREADS;
  static constexpr int kRowsPerPass = TJ_THREADS / kLanes;
  static constexpr int kPasses = (int(BN) + kRowsPerPass - 1) / kRowsPerPass;
  static constexpr int kPiecesPerThread = (kRowPieces + kLanes - 1) / kLanes;
  static constexpr bool kRagged = int(BN) % kRowsPerPass != 0 || TJ_THREADS % kLanes != 0;
  __device__ __forceinline__ static int lane() { return detail::threadId() % kLanes; }
  // The tile row of this thread in pass m, or -1 where it has none.
  __device__ __forceinline__ static int row(int m) {
    const int rowInPass = detail::threadId() / kLanes;
    const int r = m * kRowsPerPass + rowInPass;
    return kRagged && (rowInPass >= kRowsPerPass || r >= int(BN)) ? -1 : r;
  }
};

// The block-table side of a paged tile load: per pass of this thread, whether its row holds a
// token below the limit, and that token's block (the table entry) and slot. The K and V tiles
// of the same tokens share one (the emitter passes it to both copies): their lookups are the
// same loads, and the V copy then issues without waiting on the table.
template <typename T, int64_t BN, int64_t D>
struct PagedRows {
  using C = PagedCopyShape<T, BN, D>;
  unsigned block[C::kPasses];
  unsigned slot[C::kPasses];
  int bytes[C::kPasses];  // 16 where the row is in, else 0: the copies' source size
};

// Looks up the rows of tokens token_start + i, i < BN; rows at or past `limit` are masked.
// Token arithmetic is unsigned 32-bit (a masked row's token is 0, so no negative value is
// ever divided; contexts stay below 2^31 tokens): with BlockSize, the cache's block size
// when the kernel's type fixes it (0: `blockSize` at run time), a compile-time power of two,
// block and slot are a shift and a mask. Table entries are block numbers below 2^32.
template <typename T, int64_t BN, int64_t D, int64_t BlockSize, typename TI>
__device__ __forceinline__ PagedRows<T, BN, D> paged_rows(const View<TI, 2>& table, int64_t seq,
                                                         int64_t token_start, int64_t limit,
                                                         int64_t blockSize) {
  using C = PagedCopyShape<T, BN, D>;
  PagedRows<T, BN, D> rows;
  const unsigned bs = BlockSize > 0 ? unsigned(BlockSize) : unsigned(blockSize);
  const TI* tableRow = detail::opaque(table.data + seq * table.stride[0]);
  // A limit <= 0 masks every row; then no token t is below `end` (token_start may be
  // negative only in a caller's hands, and such a t is >= 2^31 as unsigned: masked too).
  const unsigned first = unsigned(token_start), end = limit > 0 ? unsigned(limit) : 0u;
#pragma unroll
  for (int m = 0; m < C::kPasses; ++m) {
    const int row = C::row(m);
    const unsigned t = first + unsigned(row);
    const bool in = (!C::kRagged || row >= 0) && t < end;
    // Masked rows read no table entry (block 0, slot 0: the head's base) and copy nothing
    // (source size 0). No select on `in` past the lookup: a guarded address computation
    // becomes a branch per row, and the next row's lookup is not hoisted above it.
    const unsigned tIn = in ? t : 0u;
    // The table's innermost stride is 1 (the launch check requires dense rows).
    rows.block[m] = unsigned(detail::loadIf(tableRow + tIn / bs, in));
    rows.slot[m] = tIn % bs;
    rows.bytes[m] = in ? 16 : 0;
  }
  trace::mark(trace::kFirstLookup, rows.block[0]);
  return rows;
}

// paged_load into shared memory from looked-up rows (paged_rows): row i of the tile is the
// rows' token i of `head`; masked rows are zero. Rows are copied 16 bytes at a time with no
// check here: the launch check (runtime/launch.cpp, kernel metadata vector_bytes = 16) admits
// a view whose rows are whole 16-byte pieces only with a 16-byte aligned base, unit innermost
// stride and outer strides in whole 16-byte pieces. (A run-time check here cost ~20
// instructions per copy and an out-of-line fallback the launch check never lets run.) This
// and paged_rows are most of a tile's instructions at one program per SM, where the issue of
// instructions bounds the kernel (bench/results/2026-12-01/s10-ncu).
template <CacheLayout Layout, int64_t BN, int64_t D, int Buffer, int Slots, int Offset, typename T, int RC>
__device__ __forceinline__ SharedTile<T, BN, D> paged_load_shared_rows(AsyncCopies& async, const View<T, RC>& cache,
                                                                      const PagedRows<T, BN, D>& rows,
                                                                      int64_t head) {
  // A row's 16-byte pieces run along the head dim in the standard layout (contiguous) and in
  // shuffled K ([blocks, heads, D/X, block_size, X]: a stride apart); shuffled V's run along
  // tokens and are not placed.
  static_assert(Layout != CacheLayout::ShuffledV, "shuffled V is not placed in shared memory");
  constexpr bool kStandard = Layout == CacheLayout::Standard;
  using S = SharedTile<T, BN, D>;
  using C = PagedCopyShape<T, BN, D>;
  constexpr int X = C::kX;
  static_assert((!S::kSwapped && !S::kXor) || C::kLanes % 2 == 0,
                "paged_load_shared_rows: lanes of a row cover whole sectors");
  S out = detail::takeSlot<Buffer, Slots, Offset, T, BN, D>(async);
  const int lane = C::lane();
  // Elements from one piece of a row to the next (a constant in the standard layout).
  const long long pieceStride = kStandard ? 0 : cache.stride[2];
  auto piece = [&](int p) {
    if constexpr (kStandard) return p * X;
    else return p * pieceStride;
  };
  // The lane's first piece within any row of the head: a row's pieces are then constant
  // offsets from one address (folded into the copy instructions).
  const char* laneBase = reinterpret_cast<const char*>(
      cache.data + head * cache.stride[kStandard ? 2 : 1] + piece(lane));
  const long long blockBytes = cache.stride[0] * (long long)sizeof(T);
  const long long slotBytes = cache.stride[kStandard ? 1 : 3] * (long long)sizeof(T);
  const unsigned base = detail::sharedAddress(out.data);
#pragma unroll
  for (int m = 0; m < C::kPasses; ++m) {
    const int row = C::row(m);
    if (C::kRagged && row < 0) continue;
    const T* src = reinterpret_cast<const T*>(laneBase + (long long)rows.block[m] * blockBytes +
                                              (long long)rows.slot[m] * slotBytes);
#pragma unroll
    for (int j = 0; j < C::kPiecesPerThread; ++j) {
      const int col = (lane + j * C::kLanes) * X;
      if (C::kRowPieces % C::kLanes == 0 || col < int(D))
        detail::cpAsync16(base + unsigned(S::offset(row, j * C::kLanes * X, lane * X)) * unsigned(sizeof(T)),
                          src + piece(j * C::kLanes), rows.bytes[m]);
    }
  }
  out.group = async.commit();
  return out;
}

// paged_load of a shuffled V cache ([blocks, heads, block_size/X, D, X], X = 16 / sizeof(T))
// into shared memory, transposed: row d of the [D, BN] tile holds dim d of the BN tokens, for
// the layout's 16-byte pieces are X tokens of one dim (a dot reads the tile as its b operand
// the other way round). Tokens at or past `limit` are zero and never read: a piece that
// straddles it copies only the tokens before it (cp.async fills the rest of the 16 bytes with
// zeros). A thread keeps one token group and copies every kDimStep-th dim of it, so it looks up
// one table entry per tile (a piece per table lookup took eight lookups per thread and tile at
// 64-token tiles); a warp's copy covers 32 / kGroups consecutive dims of each group
// (contiguous 16-byte pieces of one block) and, in shared memory, whole rows.
template <int64_t BN, int64_t D, int Buffer, int Slots, int Offset, int64_t BlockSize, typename T,
          int RC, typename TI>
__device__ __forceinline__ SharedTile<T, D, BN> paged_load_shared_transposed(
    AsyncCopies& async, const View<T, RC>& cache, const View<TI, 2>& table, int64_t seq,
    int64_t token_start, int64_t limit, int64_t head) {
  using S = SharedTile<T, D, BN>;
  constexpr int X = int(16 / sizeof(T));
  static_assert(RC == 5, "paged_load_shared_transposed: a shuffled V cache has rank 5");
  static_assert(int(BN) % X == 0 && BlockSize % X == 0,
                "paged_load_shared_transposed: groups of X tokens, each within one block");
  constexpr int kGroups = int(BN) / X;
  static_assert(TJ_THREADS % kGroups == 0, "paged_load_shared_transposed: whole groups per pass");
  // Dims a pass covers, and passes per tile (the last may cover fewer where D is no multiple).
  constexpr int kDimStep = TJ_THREADS / kGroups;
  constexpr int kPasses = (int(D) + kDimStep - 1) / kDimStep;
  S out = detail::takeSlot<Buffer, Slots, Offset, T, D, BN>(async);
  const TI* tableRow = detail::opaque(table.data + seq * table.stride[0]);
  // Unsigned token arithmetic as in paged_rows: a negative start masks every piece.
  const unsigned first = unsigned(token_start), end = limit > 0 ? unsigned(limit) : 0u;
  const int g = detail::threadId() % kGroups, d0 = detail::threadId() / kGroups;
  const unsigned t = first + unsigned(g * X);
  const unsigned valid = t < end ? (end - t < unsigned(X) ? end - t : unsigned(X)) : 0u;
  const unsigned tIn = valid > 0 ? t : 0u;
  const unsigned block = unsigned(detail::loadIf(tableRow + tIn / unsigned(BlockSize), valid > 0));
  const unsigned group = (tIn % unsigned(BlockSize)) / unsigned(X);
  // The thread's first piece; the others are whole strides of kDimStep dims further.
  const T* src = cache.data + head * cache.stride[1] + (long long)block * cache.stride[0] +
                 (long long)group * cache.stride[2] + (long long)d0 * cache.stride[3];
  const long long passStride = (long long)kDimStep * cache.stride[3];
  const unsigned base = detail::sharedAddress(out.data);
  const int bytes = int(valid * sizeof(T));
#pragma unroll
  for (int pass = 0; pass < kPasses; ++pass) {
    const int d = d0 + pass * kDimStep;
    if (int(D) % kDimStep != 0 && d >= int(D)) break;
    detail::cpAsync16(base + unsigned(S::offset(d, 0, g * X)) * unsigned(sizeof(T)),
                      src + pass * passStride, bytes);
  }
  out.group = async.commit();
  return out;
}

// load into shared memory: a 2-D tile over the view's last two axes; masked elements are
// `other`. WholeRows (the emitter's promise: the tile spans the view's innermost extent, a
// multiple of 16 bytes, from column 0, and `other` is 0) copies every row 16 bytes at a time
// with only rows masked (to zero), like paged_load_shared_rows: the launch check guarantees the
// alignment.
template <int64_t R, int64_t C, int Buffer, int Slots, int Offset, bool WholeRows = false, typename T, int RV>
__device__ __forceinline__ SharedTile<T, R, C> load_shared(AsyncCopies& async, const View<T, RV>& view,
                                                          const Index<RV>& offset, const Index<RV>& limit,
                                                          T other) {
  static_assert(RV >= 2, "load_shared: the view has at least two axes");
  using S = SharedTile<T, R, C>;
  constexpr int X = int(16 / sizeof(T));
  constexpr int kRowPieces = int((C + X - 1) / X), kPieces = int(R) * kRowPieces;
  static_assert(!WholeRows || C % X == 0, "load_shared: whole rows are whole 16-byte pieces");
  S out = detail::takeSlot<Buffer, Slots, Offset, T, R, C>(async);
  bool leadIn = true;
  long long lead = 0;
#pragma unroll
  for (int d = 0; d < RV - 2; ++d) {
    leadIn = leadIn && offset.v[d] >= 0 && offset.v[d] < limit.v[d];
    lead += offset.v[d] * view.stride[d];
  }
  // Whether 16-byte copies are possible, tested at run time (WholeRows knows it).
  const bool vecOk = view.stride[RV - 1] == 1 && detail::aligned(view.data, 16) &&
                     view.stride[RV - 2] % X == 0 && offset.v[RV - 1] % X == 0;
#pragma unroll
  for (int m = 0; m < (kPieces + TJ_THREADS - 1) / TJ_THREADS; ++m) {
    const int p = m * TJ_THREADS + detail::threadId();
    if (kPieces % TJ_THREADS != 0 && p >= kPieces) break;
    const int row = p / kRowPieces, col = (p % kRowPieces) * X;
    const long long r = offset.v[RV - 2] + row, c = offset.v[RV - 1] + col;
    const bool rowIn = leadIn && r >= 0 && r < limit.v[RV - 2];
    T* dst = out.data + S::offset(row, 0, col);
    if constexpr (WholeRows) {
      // Unit innermost stride and column offset 0; masked rows copy nothing (source size 0),
      // from the view's base.
      const T* src = rowIn ? view.data + lead + r * view.stride[RV - 2] + col : view.data;
      detail::cpAsync16(dst, src, rowIn ? 16 : 0);
      continue;
    }
    const long long at = lead + r * view.stride[RV - 2] + c * view.stride[RV - 1];
    if (vecOk && rowIn && c >= 0 && c + X <= limit.v[RV - 1] && col + X <= int(C)) {
      detail::cpAsync16(dst, view.data + at, 16);
    } else {
#pragma unroll
      for (int j = 0; j < X; ++j)
        if (col + j < int(C)) {
          const bool in = rowIn && c + j >= 0 && c + j < limit.v[RV - 1];
          dst[j] = in ? view.data[at + j * view.stride[RV - 1]] : other;
        }
    }
  }
  out.group = async.commit();
  return out;
}

}  // namespace tj
