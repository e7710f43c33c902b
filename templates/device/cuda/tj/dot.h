// dot<TransB>(a, b, acc): tensor cores (mma.sync m16n8k16, f32 accumulate) for f16/bf16
// operands, staged to scratch and fetched with ldmatrix; an FMA loop for other types. An
// accumulator in fragments (MmaTile, tj/mma.h) is taken and returned as it is.
#pragma once

#include "tj/mma.h"
#include "tj/shared.h"

namespace tj {
namespace detail {

__device__ __forceinline__ void ldmatrixX4(unsigned addr, unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}
__device__ __forceinline__ void ldmatrixX2(unsigned addr, unsigned& r0, unsigned& r1) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(addr));
}
__device__ __forceinline__ void ldmatrixX2Trans(unsigned addr, unsigned& r0, unsigned& r1) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(addr));
}
__device__ __forceinline__ void ldmatrixX4Trans(unsigned addr, unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}

// Two fp8 codes (`codes`: the lower k in the low byte) as a pair of T, the dot's 16-bit
// operand type, in one register (the lower k in the low half). Exact: f16 and bf16 hold every
// e4m3fn and e5m2 value. sm_89 and later convert a pair in one instruction to f16.
template <typename T, typename S>
__device__ __forceinline__ unsigned widenCodes(unsigned short codes) {
#if __CUDA_ARCH__ >= 890
  unsigned h;
  if constexpr (IsSame<S, f8e4m3>::value) asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h) : "h"(codes));
  else asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(h) : "h"(codes));
  if constexpr (IsSame<T, f16>::value) {
    return h;
  } else {
    unsigned r;
    asm("{.reg .f16 l, u; .reg .f32 fl, fu;\n\t"
        "mov.b32 {l, u}, %1; cvt.f32.f16 fl, l; cvt.f32.f16 fu, u;\n\t"
        "cvt.rn.bf16x2.f32 %0, fu, fl;}"
        : "=r"(r) : "r"(h));
    return r;
  }
#else
  const T lo = cast<T>(S{(unsigned char)(codes & 0xff)}), hi = cast<T>(S{(unsigned char)(codes >> 8)});
  return unsigned(lo.bits) | (unsigned(hi.bits) << 16);
#endif
}

template <typename T>
__device__ __forceinline__ void mma16816(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  if constexpr (IsSame<T, bf16>::value) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Writes the runs of a row-major [Rows, Cols] tile whose rows (Rows axis) lie in
// [r0, r0 + count) into dst[(row - r0) * stride + col] (converted to S).
template <typename S, typename T, int64_t Rows, int64_t Cols>
__device__ __forceinline__ void stageRows(S* dst, const Tile<T, Rows, Cols>& x, int r0, int count, int stride) {
  using L = typename Tile<T, Rows, Cols>::L;
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (!L::owner(k)) continue;
    int e = L::run(k) * L::kVec;
    int row = e / int(Cols), col = e % int(Cols);
    if (row < r0 || row >= r0 + count) continue;
    S* p = dst + (row - r0) * stride + col;
    if constexpr (IsSame<S, T>::value && Cols % L::kVec == 0) {
      *reinterpret_cast<Words<L::kVec * int(sizeof(T))>*>(p) = pack<T, L::kVec>(x.v, k * L::kVec);
    } else {
#pragma unroll
      for (int j = 0; j < L::kVec; ++j) {
        int f = e + j;
        dst[(f / int(Cols) - r0) * stride + f % int(Cols)] = cast<S>(x.v[k * L::kVec + j]);
      }
    }
  }
}

// Same for the columns [c0, c0 + count) of every row.
template <typename S, typename T, int64_t Rows, int64_t Cols>
__device__ __forceinline__ void stageCols(S* dst, const Tile<T, Rows, Cols>& x, int c0, int count, int stride) {
  using L = typename Tile<T, Rows, Cols>::L;
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (!L::owner(k)) continue;
    int e = L::run(k) * L::kVec;
    int row = e / int(Cols), col = e % int(Cols);
    if constexpr (IsSame<S, T>::value && Cols % L::kVec == 0) {
      // count and c0 are multiples of the run length here.
      if (col < c0 || col >= c0 + count) continue;
      *reinterpret_cast<Words<L::kVec * int(sizeof(T))>*>(dst + row * stride + col - c0) =
          pack<T, L::kVec>(x.v, k * L::kVec);
    } else {
#pragma unroll
      for (int j = 0; j < L::kVec; ++j) {
        int f = e + j, cc = f % int(Cols);
        if (cc >= c0 && cc < c0 + count) dst[(f / int(Cols)) * stride + cc - c0] = cast<S>(x.v[k * L::kVec + j]);
      }
    }
    (void)row;
  }
}

// Same for an operand in fragments (the probabilities of a softmax over an mma tile): each
// thread writes its column pairs.
template <typename S, typename T, int64_t Rows, int64_t Cols>
__device__ __forceinline__ void stageCols(S* dst, const MmaTile<T, Rows, Cols>& x, int c0, int count, int stride) {
  using L = MmaLayout<Rows, Cols>;
#pragma unroll
  for (int i = 0; i < L::kRegs; i += 2) {
    if (!L::holds(i)) continue;
    const int row = L::row(i), col = L::col(i) - c0;
    if (col < 0 || col >= count) continue;
    if constexpr (IsSame<S, T>::value && kIsHalf<T>) {
      *reinterpret_cast<unsigned*>(dst + row * stride + col) = x.v.w[i / 2];
    } else {
      dst[row * stride + col] = cast<S>(x.v[i]);
      dst[row * stride + col + 1] = cast<S>(x.v[i + 1]);
    }
  }
}

template <int Rows, int RowBytes, int Budget, int Step>
struct ChunkOf {  // largest multiple of Step (<= Rows) whose rows fit in Budget bytes
  static constexpr int kFit = Budget / RowBytes / Step * Step;
  static constexpr int value = kFit < Rows ? kFit : Rows;
};

// Operand shapes of a dot: a is [M, K]; b is [N, K] (TransB) or [K, N].
template <typename X>
struct OperandShape;
template <typename T, int64_t R, int64_t C>
struct OperandShape<Tile<T, R, C>> {
  using Element = T;
  static constexpr int64_t kRows = R, kCols = C;
};
template <typename T, int64_t R, int64_t C>
struct OperandShape<SharedTile<T, R, C>> {
  using Element = T;
  static constexpr int64_t kRows = R, kCols = C;
};
template <typename T, int64_t R, int64_t C>
struct OperandShape<MmaTile<T, R, C>> {
  using Element = T;
  static constexpr int64_t kRows = R, kCols = C;
};

// Tensor-core dot. Register operands are staged into scratch (in K chunks when they do not
// fit); shared-memory operands (SharedTile) are read in place once their copies landed. The
// accumulator is a canonical Tile (returned through scratch) or an MmaTile (kept as it is).
template <bool TransB, typename T, int64_t M, int64_t K, int64_t N, typename AOp, typename BOp, typename Acc>
__device__ __forceinline__ Acc dotMma(const AOp& a, const BOp& b, const Acc& acc, AsyncCopies* async) {
  static_assert(M % 16 == 0, "dot (mma.sync m16n8k16): M must be a multiple of 16");
  static_assert(N % 8 == 0, "dot (mma.sync m16n8k16): N must be a multiple of 8");
  static_assert(K % 16 == 0, "dot (mma.sync m16n8k16): K must be a multiple of 16");
  constexpr bool kAShared = IsSharedTile<AOp>::value, kBShared = IsSharedTile<BOp>::value;
  constexpr bool kStaged = !kAShared || !kBShared, kShared = kAShared || kBShared;
  constexpr bool kFragments = IsMmaTile<Acc>::value;
  using U = MmaLayout<M, N>;  // which warp computes which 16x8 unit of the result
  constexpr int W = U::kWarps;
  constexpr int MT = U::kRowUnits, NT = U::kColUnits;
  constexpr int kStrideNT = int(N) + (((int(N) / 8) % 2 == 0) ? 8 : 0);  // odd 16-byte units
  // K chunk: a multiple of 16 such that the staged (register) operands fit the scratch.
  constexpr int kPerK = (kAShared ? 0 : int(M) * 2) + (kBShared ? 0 : TransB ? int(N) * 2 : kStrideNT * 2);
  constexpr int kFixed = (kAShared ? 0 : int(M) * 16) + (kBShared || !TransB ? 0 : int(N) * 16);
  constexpr int kKcRaw = kPerK == 0 ? int(K) : (TJ_SMEM_BYTES - kFixed) / kPerK / 16 * 16;
  constexpr int Kc = kKcRaw < int(K) ? kKcRaw : int(K);
  static_assert(Kc >= 16, "dot: operands too large for TJ_SMEM_BYTES");
  // Row strides of the staged operands (shared ones address through SharedTile::offset).
  constexpr int kStrideA = Kc + 8;
  constexpr int kStrideB = TransB ? Kc + 8 : kStrideNT;
  static_assert((kAShared ? 0 : M * kStrideA) * 2 + (kBShared ? 0 : (TransB ? N : Kc) * kStrideB) * 2 <=
                    TJ_SMEM_BYTES, "dot: chunk plan");
  // Staged in one chunk beside shared operands: the barrier of the wait for the copies also
  // publishes the staged operands.
  constexpr bool kOneBarrier = kStaged && kShared && Kc == int(K);

  // A b operand of fp8 codes in shared memory, widened to T as its fragments are read.
  using BElement = typename OperandShape<BOp>::Element;
  constexpr bool kBCodes = kIsFp8<BElement>;
  static_assert(!kBCodes || kBShared, "dot: fp8 codes are read from shared memory only");
  T* sA = reinterpret_cast<T*>(scratch());
  T* sB = sA + (kAShared ? 0 : M * kStrideA);
  unsigned aBase = sharedAddress(sA), bBase = sharedAddress(sB);
  if constexpr (kAShared) aBase = sharedAddress(a.data);
  if constexpr (kBShared) bBase = sharedAddress(b.data);
  int group = 0;
  if constexpr (kAShared) group = a.group;
  if constexpr (kBShared) group = b.group > group ? b.group : group;
  if constexpr (kShared && !kOneBarrier) async->waitFor(group);
  const int thread = threadId(), warp = thread / 32, lane = thread % 32;
  constexpr int kUnits = U::kUnits;
  float c[kUnits][4];
#pragma unroll
  for (int u = 0; u < kUnits; ++u)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if constexpr (kFragments) c[u][i] = acc.v[u * 4 + i];
      else c[u][i] = 0.0f;
    }

  for (int k0 = 0; k0 < int(K); k0 += Kc) {
    const int kc = int(K) - k0 < Kc ? int(K) - k0 : Kc;
    if constexpr (kStaged) {
      __syncthreads();
      if constexpr (!kAShared) stageCols(sA, a, k0, kc, kStrideA);
      if constexpr (!kBShared) {
        if constexpr (TransB) stageCols(sB, b, k0, kc, kStrideB);
        else stageRows(sB, b, k0, kc, kStrideB);
      }
      if constexpr (kOneBarrier) async->waitFor(group);
      else __syncthreads();
    }
    // Shared operands are addressed at absolute K; staged ones from the chunk's start.
    const int aK = kAShared ? k0 : 0, bK = kBShared ? k0 : 0;
    // Element offsets of 16-byte ldmatrix rows at column aligned + within (aligned: a multiple
    // of 16 elements): a shared operand's own layout, or a staged one's padded rows.
    auto aAt = [&](int row, int aligned, int within) {
      if constexpr (kAShared) return AOp::offset(row, aligned, within);
      else return row * kStrideA + aligned + within;
    };
    auto bAt = [&](int row, int aligned, int within) {
      if constexpr (kBShared) return BOp::offset(row, aligned, within);
      else return row * kStrideB + aligned + within;
    };
    auto loadA = [&](int mi, int kk, unsigned (&af)[4]) {
      ldmatrixX4(aBase + 2u * unsigned(aAt(mi * 16 + lane % 16, aK + kk, (lane / 16) * 8)), af[0], af[1], af[2],
                 af[3]);
    };
    // Column unit fixed + own: `fixed` known at compile time, `own` the thread's (its warp's).
    // The B fragments of `steps` (1 or 2) consecutive k steps from kk: two steps are one
    // ldmatrix.x4 (lanes 16-31 address the second step's rows), half the instructions and
    // address arithmetic of two .x2.
    auto loadB = [&](int fixed, int own, int kk, int steps, unsigned (&bf)[4]) {
      const int ni = fixed + own;
      if constexpr (kBCodes) {
        // The fragments ldmatrix would give (register j: k offset 8 j, the thread's pair at
        // k (lane % 4) * 2 and n lane / 4), gathered as codes: a pair along k is two adjacent
        // bytes of a row of b [N, K], or one byte of each of two rows of b [K, N]. Columns
        // are split at whole 32-byte sectors (two pieces), as SharedTile::offset wants.
        constexpr int kSector = 2 * BOp::kPiece;
        auto at = [&](int row, int col) {
          return bBase + unsigned(BOp::offset(row, col / kSector * kSector, col % kSector));
        };
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (j >= 2 * steps) break;
          const int k = bK + kk + 8 * j + (lane % 4) * 2;
          unsigned short codes;
          if constexpr (TransB) {
            asm volatile("ld.shared.u16 %0, [%1];" : "=h"(codes) : "r"(at(ni * 8 + lane / 4, k)));
          } else {
            unsigned short lo, hi;
            asm volatile("ld.shared.u8 %0, [%1];" : "=h"(lo) : "r"(at(k, ni * 8 + lane / 4)));
            asm volatile("ld.shared.u8 %0, [%1];" : "=h"(hi) : "r"(at(k + 1, ni * 8 + lane / 4)));
            codes = (unsigned short)(lo | (hi << 8));
          }
          bf[j] = widenCodes<T, BElement>(codes);
        }
      } else if constexpr (TransB) {
        const unsigned at = bBase + 2u * unsigned(bAt(ni * 8 + lane % 8, bK + kk, (lane / 8) * 8));
        if (steps == 2) ldmatrixX4(at, bf[0], bf[1], bf[2], bf[3]);
        else ldmatrixX2(at, bf[0], bf[1]);
      } else {
        const unsigned at = bBase + 2u * unsigned(bAt(bK + kk + lane % 8 + (lane / 8) * 8, fixed * 8 / 16 * 16,
                                                      fixed * 8 % 16 + own * 8));
        if (steps == 2) ldmatrixX4Trans(at, bf[0], bf[1], bf[2], bf[3]);
        else ldmatrixX2Trans(at, bf[0], bf[1]);
      }
    };
    // Two k steps at a time (one left over where K / 16 is odd); each accumulator still takes
    // its steps in order, so the sums round as one step at a time did.
    for (int kk = 0; kk < kc; kk += 32) {
      const int steps = kk + 16 < kc ? 2 : 1;
      if constexpr (U::kColumnSplit) {
        // One A fragment per row unit and step serves all of the warp's column units.
#pragma unroll
        for (int mi = 0; mi < MT; ++mi) {
          unsigned af[2][4];
          loadA(mi, kk, af[0]);
          if (steps == 2) loadA(mi, kk + 16, af[1]);
#pragma unroll
          for (int jn = 0; jn < NT / W; ++jn) {
            unsigned bf[4];
            loadB(jn * W, warp, kk, steps, bf);
            mma16816<T>(c[mi * (NT / W) + jn], af[0], bf[0], bf[1]);
            if (steps == 2) mma16816<T>(c[mi * (NT / W) + jn], af[1], bf[2], bf[3]);
          }
        }
      } else {
#pragma unroll
        for (int u = 0; u < kUnits; ++u) {
          if (!U::unitValid(u)) continue;
          unsigned af[2][4], bf[4];
          loadA(U::unitRow(u), kk, af[0]);
          if (steps == 2) loadA(U::unitRow(u), kk + 16, af[1]);
          loadB(0, U::unitCol(u), kk, steps, bf);
          mma16816<T>(c[u], af[0], bf[0], bf[1]);
          if (steps == 2) mma16816<T>(c[u], af[1], bf[2], bf[3]);
        }
      }
    }
  }

  if constexpr (kFragments) {
    // No barrier: a copy into a slot of a buffer read here takes one unless a wait did.
    if constexpr (kAShared) async->markRead(a.buffer);
    if constexpr (kBShared) async->markRead(b.buffer);
    Acc out;
#pragma unroll
    for (int u = 0; u < kUnits; ++u)
#pragma unroll
      for (int i = 0; i < 4; ++i) out.v[u * 4 + i] = c[u][i];
    return out;
  } else {
    // Accumulator fragments -> canonical layout, through scratch, in chunks of 16-row bands.
    // The barrier between a band's writes and reads is also what lets callers reuse shared
    // operands: no thread is still reading them (ldmatrix above) once any thread returns. The
    // first band's leading barrier protects scratch from readers that are still at work: the
    // staged operands of this dot, or (no staging) nobody, since the wait for the shared
    // operands was a barrier after every earlier use of scratch.
    using LO = typename Tile<float, M, N>::L;
    constexpr int kStrideC = int(N) + 4;
    constexpr int kBand = ChunkOf<int(M), kStrideC * 4, TJ_SMEM_BYTES, 16>::value;
    static_assert(kBand >= 16, "dot: 16 rows of the result exceed TJ_SMEM_BYTES");
    float* sC = reinterpret_cast<float*>(scratch());
    Tile<float, M, N> out = acc;
    for (int r0 = 0; r0 < int(M); r0 += kBand) {
      if (r0 > 0 || kStaged) __syncthreads();
#pragma unroll
      for (int u = 0; u < kUnits; ++u) {
        if (!U::unitValid(u)) continue;
        const int row = U::unitRow(u) * 16 + lane / 4 - r0, col = U::unitCol(u) * 8 + (lane % 4) * 2;
        if (row < 0 || row >= kBand) continue;
        *reinterpret_cast<Words<8>*>(sC + row * kStrideC + col) = pack<float, 2>(c[u], 0);
        *reinterpret_cast<Words<8>*>(sC + (row + 8) * kStrideC + col) = pack<float, 2>(c[u], 2);
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < LO::kPer; ++k) {
        if (!LO::valid(k)) continue;
        int e = LO::run(k) * LO::kVec;
        int row = e / int(N) - r0, col = e % int(N);
        if (row < 0 || row >= kBand) continue;
#pragma unroll
        for (int j = 0; j < LO::kVec; ++j) out.v[k * LO::kVec + j] += sC[row * kStrideC + col + j];
      }
    }
    return out;
  }
}

// Float (or mixed) operands: FMA over K chunks staged in scratch as float.
template <bool TransB, typename TA, typename TB, int64_t M, int64_t K, int64_t B0, int64_t B1, int64_t N>
__device__ __forceinline__ Tile<float, M, N> dotFma(const Tile<TA, M, K>& a, const Tile<TB, B0, B1>& b,
                                                   const Tile<float, M, N>& acc) {
  constexpr int kBytesPerK = int(M + N) * 4 + 8;
  constexpr int Kc0 = TJ_SMEM_BYTES / kBytesPerK;
  static_assert(Kc0 >= 1, "dot: operands too large for TJ_SMEM_BYTES");
  constexpr int Kc = Kc0 < int(K) ? Kc0 : int(K);
  constexpr int kStrideA = Kc + 1;  // sA[m][k]
  constexpr int kStrideB = Kc + 1;  // sB[n][k]
  float* sA = reinterpret_cast<float*>(scratch());
  float* sB = sA + M * kStrideA;
  using LO = typename Tile<float, M, N>::L;
  Tile<float, M, N> out = acc;
  for (int k0 = 0; k0 < int(K); k0 += Kc) {
    const int kc = int(K) - k0 < Kc ? int(K) - k0 : Kc;
    __syncthreads();
    {
      using LA = typename Tile<TA, M, K>::L;
#pragma unroll
      for (int k = 0; k < LA::kPer; ++k) {
        if (!LA::owner(k)) continue;
#pragma unroll
        for (int j = 0; j < LA::kVec; ++j) {
          int e = LA::run(k) * LA::kVec + j, m = e / int(K), kx = e % int(K) - k0;
          if (kx >= 0 && kx < kc) sA[m * kStrideA + kx] = cast<float>(a.v[k * LA::kVec + j]);
        }
      }
      using LB = typename Tile<TB, B0, B1>::L;
#pragma unroll
      for (int k = 0; k < LB::kPer; ++k) {
        if (!LB::owner(k)) continue;
#pragma unroll
        for (int j = 0; j < LB::kVec; ++j) {
          int e = LB::run(k) * LB::kVec + j;
          int n = TransB ? e / int(B1) : e % int(B1);
          int kx = (TransB ? e % int(B1) : e / int(B1)) - k0;
          if (kx >= 0 && kx < kc) sB[n * kStrideB + kx] = cast<float>(b.v[k * LB::kVec + j]);
        }
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < LO::kPer; ++k) {
      if (!LO::valid(k)) continue;
#pragma unroll
      for (int j = 0; j < LO::kVec; ++j) {
        int e = LO::run(k) * LO::kVec + j, m = e / int(N), n = e % int(N);
        float s = 0.0f;
        for (int kx = 0; kx < kc; ++kx) s = fmaf(sA[m * kStrideA + kx], sB[n * kStrideB + kx], s);
        out.v[k * LO::kVec + j] += s;
      }
    }
  }
  return out;
}

}  // namespace detail

template <bool TransB, typename TA, typename TB, int64_t M, int64_t K, int64_t B0, int64_t B1, int64_t N>
__device__ __forceinline__ Tile<float, M, N> dot(const Tile<TA, M, K>& a, const Tile<TB, B0, B1>& b,
                                                 const Tile<float, M, N>& acc) {
  static_assert(TransB ? (B0 == N && B1 == K) : (B0 == K && B1 == N), "dot: operand shapes do not agree");
  if constexpr (IsSame<TA, TB>::value && kIsHalf<TA>)
    return detail::dotMma<TransB, TA, M, K, N>(a, b, acc, nullptr);
  else return detail::dotFma<TransB>(a, b, acc);
}

namespace detail {
// Tensor-core dot of operands of any kind (registers, shared memory, fragments).
template <bool TransB, typename AOp, typename BOp, typename Acc>
__device__ __forceinline__ Acc dotOperands(const AOp& a, const BOp& b, const Acc& acc, AsyncCopies* async) {
  using SA = OperandShape<AOp>;
  using SB = OperandShape<BOp>;
  constexpr int64_t M = Acc::dim(0), N = Acc::dim(1);
  static_assert(SA::kRows == M, "dot: a has M rows");
  constexpr int64_t K = SA::kCols;
  static_assert(TransB ? (SB::kRows == N && SB::kCols == K) : (SB::kRows == K && SB::kCols == N),
                "dot: operand shapes do not agree");
  using T = typename SA::Element;
  static_assert(kIsHalf<T> && (IsSame<T, typename SB::Element>::value ||
                               (kIsFp8<typename SB::Element> && IsSharedTile<BOp>::value)),
                "dot: operands in shared memory or fragments are f16/bf16 (tensor cores), b "
                "also fp8 codes in shared memory");
  return dotMma<TransB, T, M, K, N>(a, b, acc, async);
}
}  // namespace detail

// With an operand in shared memory (tensor-core dots only; the placement pass checks).
template <bool TransB, typename AOp, typename BOp, int64_t M, int64_t N>
__device__ __forceinline__ Tile<float, M, N> dot(const AOp& a, const BOp& b, const Tile<float, M, N>& acc,
                                                 AsyncCopies& async) {
  return detail::dotOperands<TransB>(a, b, acc, &async);
}

// With the accumulator in fragments (#tj.mma; tensor-core dots only, the layout pass checks).
template <bool TransB, typename AOp, typename BOp, int64_t M, int64_t N>
__device__ __forceinline__ MmaTile<float, M, N> dot(const AOp& a, const BOp& b, const MmaTile<float, M, N>& acc) {
  return detail::dotOperands<TransB>(a, b, acc, nullptr);
}
template <bool TransB, typename AOp, typename BOp, int64_t M, int64_t N>
__device__ __forceinline__ MmaTile<float, M, N> dot(const AOp& a, const BOp& b, const MmaTile<float, M, N>& acc,
                                                    AsyncCopies& async) {
  return detail::dotOperands<TransB>(a, b, acc, &async);
}

// With a in fragments and a canonical accumulator.
template <bool TransB, typename T, int64_t M, int64_t K, typename BOp, int64_t N>
__device__ __forceinline__ Tile<float, M, N> dot(const MmaTile<T, M, K>& a, const BOp& b, const Tile<float, M, N>& acc) {
  return detail::dotOperands<TransB>(a, b, acc, nullptr);
}

}  // namespace tj
