// The CPU wave model of the HIP device library: every work-item of a workgroup is a fiber
// (ucontext) on one host thread, switched at workgroup barriers, wave barriers and cross-lane
// operations; LDS (`__shared__`) is thread-local, so one workgroup at a time per host thread
// owns it. The `__builtin_amdgcn_*` the library uses are modelled lane-exactly (DPP quad_perm,
// ds_swizzle, ds_bpermute, readfirstlane, MFMA/WMMA 16x16 with the layouts of
// compiler/backends/hip/matrix_instructions.cpp). Included before tj/device.h; the toolchain
// defines the target family macro (__GFX9__ / __GFX11__) so that the library picks its wave.
#pragma once

#include <math.h>
#include <stdlib.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__GFX9__)
#define TJ_WAVE_MODEL_WAVE 64
#elif defined(__GFX11__)
#define TJ_WAVE_MODEL_WAVE 32
#else
#error "the wave model knows gfx9 (wave64) and gfx11 (wave32)"
#endif

#define __device__
#define __host__
#define __global__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
// `__shared__ alignas(16) T x[N]` in a function: alignas may not follow `thread_local`.
#define alignas(n) __attribute__((aligned(n)))
// Host memory is one address space: the library's global (1) qualifier becomes no-op.
#define address_space(n) unused
// Workgroups run on several host threads at once: device-scope atomics are host atomics.
#define __HIP_MEMORY_SCOPE_AGENT 0
#define __hip_atomic_fetch_add(pointer, value, order, scope) __atomic_fetch_add(pointer, value, order)
#define __hip_atomic_store(pointer, value, order, scope) __atomic_store_n(pointer, value, order)

namespace wave_model {

constexpr int kWave = TJ_WAVE_MODEL_WAVE;
constexpr int kMaxLanes = 1024;
constexpr size_t kStackBytes = 256 * 1024;

// One workgroup in flight on this host thread.
struct Block {
  int threads = 0;
  __INT64_TYPE__ programId[3] = {0, 0, 0};
  __INT64_TYPE__ numPrograms[3] = {1, 1, 1};
  ucontext_t scheduler;
  ucontext_t lanes[kMaxLanes];
  bool done[kMaxLanes];
  int current = 0;
  // Lanes that have returned count as arrived at every later barrier (as a wave that has
  // ended no longer holds up s_barrier), so an early return cannot hang the workgroup.
  int blockArrived = 0, blockFinished = 0;
  unsigned blockGeneration = 0;
  int waveArrived[kMaxLanes / kWave], waveFinished[kMaxLanes / kWave];
  unsigned waveGeneration[kMaxLanes / kWave];
  unsigned long long words[kMaxLanes];  // one cross-lane slot per lane
  float matrix[kMaxLanes][3][16];       // a, b, c of one matrix instruction per lane
  void (*body)(const void*);
  const void* args;
};

inline thread_local Block* tBlock = nullptr;

inline void yield() {
  Block& b = *tBlock;
  swapcontext(&b.lanes[b.current], &b.scheduler);
}

inline int lane() { return tBlock->current; }

// Opens a barrier of `lanes` lanes once every one has arrived or returned; true if it did.
inline bool release(int& arrived, int finished, int lanes, unsigned& generation) {
  if (arrived == 0 || arrived + finished < lanes) return false;
  arrived = 0;
  ++generation;
  return true;
}

// Every lane of the workgroup (or of this lane's wave) arrives before any leaves.
inline void blockBarrier() {
  Block& b = *tBlock;
  const unsigned generation = b.blockGeneration;
  ++b.blockArrived;
  if (release(b.blockArrived, b.blockFinished, b.threads, b.blockGeneration)) return;
  while (b.blockGeneration == generation) yield();
}
inline void waveBarrier() {
  Block& b = *tBlock;
  const int wave = b.current / kWave;
  const unsigned generation = b.waveGeneration[wave];
  ++b.waveArrived[wave];
  if (release(b.waveArrived[wave], b.waveFinished[wave], kWave, b.waveGeneration[wave])) return;
  while (b.waveGeneration[wave] == generation) yield();
}

// Every lane offers `mine`; returns what lane `source` (an index inside the wave) offered.
template <typename T>
inline T exchange(T mine, int source) {
  static_assert(sizeof(T) <= 8, "cross-lane values are at most 8 bytes");
  Block& b = *tBlock;
  unsigned long long word = 0;
  __builtin_memcpy(&word, &mine, sizeof(T));
  b.words[b.current] = word;
  waveBarrier();
  word = b.words[(b.current / kWave) * kWave + source];
  waveBarrier();
  T result;
  __builtin_memcpy(&result, &word, sizeof(T));
  return result;
}

inline int waveLane() { return tBlock->current % kWave; }

// ds_bpermute: each lane reads the word of lane addr[.. : 2] (modulo the wave).
inline int bpermute(int address, int value) { return exchange(value, (address >> 2) & (kWave - 1)); }

// ds_swizzle: offset[15] set is quad-permute mode, else bit-mask mode within 32 lanes.
template <int Offset>
inline int swizzle(int value) {
  const int l = waveLane();
  int source;
  if constexpr ((Offset & 0x8000) != 0) {
    source = (l & ~3) | ((Offset >> (2 * (l & 3))) & 3);
  } else {
    constexpr int kAnd = Offset & 0x1f, kOr = (Offset >> 5) & 0x1f, kXor = (Offset >> 10) & 0x1f;
    source = (l & ~0x1f) | ((((l & 0x1f) & kAnd) | kOr) ^ kXor);
  }
  return exchange(value, source);
}

// DPP: quad_perm controls (0x00..0xff) with every row and bank enabled; anything else is not
// modelled and refused at compile time.
template <int Control, int RowMask, int BankMask, bool BoundControl>
inline int updateDpp(int old, int value) {
  static_assert(Control >= 0 && Control <= 0xff && RowMask == 0xf && BankMask == 0xf,
                "the wave model has DPP quad_perm with all rows and banks only");
  (void)old;
  const int l = waveLane();
  return exchange(value, (l & ~3) | ((Control >> (2 * (l & 3))) & 3));
}

template <typename T>
inline T readFirstLane(T value) { return exchange(value, 0); }

inline float bf16Value(unsigned short bits) {
  const unsigned u = unsigned(bits) << 16;
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
template <typename E>
inline float operandValue(E e) {
  if constexpr (sizeof(E) == 2 && !__is_same(E, _Float16)) return bf16Value((unsigned short)e);
  else return float(e);
}

// A 16x16 matrix instruction over one wave. Lane l's operand element e holds A[l % 16][k] and
// B[k][l % 16] with k = KOfLane(l, e); its accumulator element v is C[RowOfC(l, v)][l % 16].
// `Groups` lanes of 16 cover K (wave32 WMMA: lanes 16..31 repeat 0..15).
template <int K, int E, int V, typename KOf, typename RowOf, typename Op, typename Acc>
inline Acc matrix16(Op a, Op b, Acc c, KOf kOf, RowOf rowOf) {
  Block& b0 = *tBlock;
  const int me = b0.current, base = (me / kWave) * kWave;
  for (int e = 0; e < E; ++e) {
    b0.matrix[me][0][e] = operandValue(a[e]);
    b0.matrix[me][1][e] = operandValue(b[e]);
  }
  waveBarrier();
  float A[16][K], B[K][16];
  for (int l = 0; l < kWave; ++l)
    for (int e = 0; e < E; ++e) {
      const int k = kOf(l, e);
      if (k < 0) continue;
      A[l % 16][k] = b0.matrix[base + l][0][e];
      B[k][l % 16] = b0.matrix[base + l][1][e];
    }
  waveBarrier();
  const int l = me - base;
  Acc d = c;
  for (int v = 0; v < V; ++v) {
    const int row = rowOf(l, v), column = l % 16;
    float sum = c[v];
    for (int k = 0; k < K; ++k) sum += A[row][k] * B[k][column];
    d[v] = sum;
  }
  return d;
}

// v_mfma_f32_16x16x16 (gfx9, wave64): k = 4 (l / 16) + e; C row 4 (l / 16) + v.
template <typename Op, typename Acc>
inline Acc mfma16x16x16(Op a, Op b, Acc c) {
  return matrix16<16, 4, 4>(a, b, c, [](int l, int e) { return 4 * (l / 16) + e; },
                            [](int l, int v) { return 4 * (l / 16) + v; });
}
// v_wmma_f32_16x16x16 (gfx11, wave32): k = e (lanes 16..31 repeat 0..15); C row 2 v + l / 16.
template <typename Op, typename Acc>
inline Acc wmma16x16x16(Op a, Op b, Acc c) {
  return matrix16<16, 16, 8>(a, b, c, [](int l, int e) { return l < 16 ? e : -1; },
                             [](int l, int v) { return 2 * v + l / 16; });
}

template <int N>
struct Refused {
  static constexpr bool value = false;
};
template <typename... T>
inline int notModelled(T...) {
  static_assert(Refused<int(sizeof...(T))>::value && sizeof...(T) == 1000,
                "this matrix instruction is not in the wave model (gfx950, gfx12)");
  return 0;
}

inline void laneMain() {
  Block& b = *tBlock;
  b.body(b.args);
  b.done[b.current] = true;  // returns to the scheduler (uc_link)
  const int wave = b.current / kWave;
  release(b.blockArrived, ++b.blockFinished, b.threads, b.blockGeneration);
  release(b.waveArrived[wave], ++b.waveFinished[wave], kWave, b.waveGeneration[wave]);
}

// Runs one workgroup: `threads` fibers round-robin until every one has returned. Where the
// fibers' stacks cannot be allocated it says so on stderr and runs nothing (the kernel entry
// has no error channel; the caller's check then fails on the untouched outputs).
inline bool runBlock(void (*body)(const void*), const void* args, int threads,
                     const __INT64_TYPE__ programId[3], const __INT64_TYPE__ numPrograms[3]) {
  static thread_local Block* block = new Block();
  static thread_local char* stacks = static_cast<char*>(malloc(kStackBytes * kMaxLanes));
  if (!stacks || !block) {
    static const char kMessage[] =
        "tilejit wave model: cannot allocate the fibers' stacks of a workgroup; it did not run\n";
    (void)write(2, kMessage, sizeof(kMessage) - 1);
    return false;
  }
  Block& b = *block;
  b.threads = threads;
  b.body = body;
  b.args = args;
  for (int i = 0; i < 3; ++i) b.programId[i] = programId[i], b.numPrograms[i] = numPrograms[i];
  b.blockArrived = b.blockFinished = 0;
  for (int w = 0; w < kMaxLanes / kWave; ++w) b.waveArrived[w] = b.waveFinished[w] = 0;
  tBlock = &b;
  for (int t = 0; t < threads; ++t) {
    b.done[t] = false;
    getcontext(&b.lanes[t]);
    b.lanes[t].uc_stack.ss_sp = stacks + size_t(t) * kStackBytes;
    b.lanes[t].uc_stack.ss_size = kStackBytes;
    b.lanes[t].uc_link = &b.scheduler;
    makecontext(&b.lanes[t], laneMain, 0);
  }
  for (bool running = true; running;) {
    running = false;
    for (int t = 0; t < threads; ++t) {
      if (b.done[t]) continue;
      b.current = t;
      swapcontext(&b.scheduler, &b.lanes[t]);
      running = true;
    }
  }
  tBlock = nullptr;
  return true;
}

}  // namespace wave_model

// The host compiler turns conversions to __bf16 into these runtime calls, which a shared
// object built without compiler-rt lacks: round to nearest even, NaN kept quiet. Defined
// (not inline: nothing in the source names them) once per kernel object, hidden.
extern "C" __attribute__((visibility("hidden"), used)) __bf16 __truncsfbf2(float f) {
  unsigned u;
  __builtin_memcpy(&u, &f, 4);
  const unsigned short bits = (u & 0x7fffffffu) > 0x7f800000u
                                  ? (unsigned short)((u >> 16) | 0x40u)
                                  : (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  return __builtin_bit_cast(__bf16, bits);
}
// double -> bf16 without double rounding: to float rounding to odd, then to nearest even.
extern "C" __attribute__((visibility("hidden"), used)) __bf16 __truncdfbf2(double d) {
  float f = float(d);
  if (f == f && double(f) != d) {
    unsigned u;
    __builtin_memcpy(&u, &f, 4);
    if (__builtin_fabs(double(f)) > __builtin_fabs(d)) u -= 1;  // toward zero
    u |= 1u;
    __builtin_memcpy(&f, &u, 4);
  }
  return __truncsfbf2(f);
}

#define __builtin_amdgcn_workitem_id_x() unsigned(::wave_model::lane())
#define __builtin_amdgcn_workgroup_id_x() unsigned(::wave_model::tBlock->programId[0])
#define __builtin_amdgcn_workgroup_id_y() unsigned(::wave_model::tBlock->programId[1])
#define __builtin_amdgcn_workgroup_id_z() unsigned(::wave_model::tBlock->programId[2])
#define __builtin_amdgcn_grid_size_x() unsigned(::wave_model::tBlock->numPrograms[0] * TJ_THREADS)
#define __builtin_amdgcn_grid_size_y() unsigned(::wave_model::tBlock->numPrograms[1])
#define __builtin_amdgcn_grid_size_z() unsigned(::wave_model::tBlock->numPrograms[2])
#define __builtin_amdgcn_s_barrier() ::wave_model::blockBarrier()
#define __builtin_amdgcn_wave_barrier() ::wave_model::waveBarrier()
#define __builtin_amdgcn_fence(order, scope) ((void)0)
#define __builtin_amdgcn_ds_bpermute(address, value) ::wave_model::bpermute(address, value)
#define __builtin_amdgcn_ds_swizzle(value, offset) ::wave_model::swizzle<(offset)>(value)
#define __builtin_amdgcn_update_dpp(old, value, control, rows, banks, bound) \
  ::wave_model::updateDpp<(control), (rows), (banks), (bound)>(old, value)
#define __builtin_amdgcn_readfirstlane(value) ::wave_model::readFirstLane(value)
#define __builtin_amdgcn_exp2f(x) ::exp2f(x)
#define __builtin_amdgcn_logf(x) ::log2f(x)
#define __builtin_amdgcn_rsqf(x) (1.0f / ::sqrtf(x))
#define __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, cbsz, abid, blgp) ::wave_model::mfma16x16x16(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, cbsz, abid, blgp) ::wave_model::mfma16x16x16(a, b, c)
#define __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, c) ::wave_model::wmma16x16x16(a, b, c)
#define __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c) ::wave_model::wmma16x16x16(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, c, cbsz, abid, blgp) ::wave_model::notModelled(a)
#define __builtin_amdgcn_mfma_f32_16x16x32_f16(a, b, c, cbsz, abid, blgp) ::wave_model::notModelled(a)
#define __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, c) ::wave_model::notModelled(a)
#define __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c) ::wave_model::notModelled(a)
