// MFMA and WMMA over one wave, from the layouts generated out of the target description
// (tj_wave_model/target.h: k<A|B|C>[lane][element] = {row, col}): each lane offers its A and
// B registers, every lane forms A [M, K] and B [K, N] from the wave's, and its accumulator
// element v becomes C + A B at the (row, col) kC gives it.
#pragma once

#include "tj_wave_model/fibers.h"

namespace wave_model {

inline float bf16Value(unsigned short bits) {
  const unsigned u = unsigned(bits) << 16;
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
// An operand element: _Float16 and __bf16 by value, a 16-bit integer as bf16 bits (the
// library passes gfx9/gfx11/gfx12's bf16 operands as short vectors).
template <typename E>
inline float operandValue(E e) {
  if constexpr (__is_same(E, _Float16) || __is_same(E, __bf16)) return float(e);
  else return bf16Value((unsigned short)e);
}

inline unsigned bitsOf(float f) {
  unsigned u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}

// L: a layout of tj_wave_model/target.h. The broadcast controls (cbsz, abid, blgp) are not
// modelled: the library passes 0.
template <typename L, int Cbsz, int Abid, int Blgp, typename Op, typename Acc>
inline Acc matrixInstruction(Op a, Op b, Acc c) {
  static_assert(Cbsz == 0 && Abid == 0 && Blgp == 0, "the wave model has MFMA without broadcast controls only");
  static_assert(L::kLanes == kWave, "the matrix instruction runs on another wave size than the target's");
  static_assert(sizeof(Op) / sizeof(a[0]) == L::kAElements && L::kAElements == L::kBElements,
                "the operand vector is not the instruction's A/B registers per lane");
  static_assert(sizeof(Acc) / sizeof(c[0]) == L::kCElements,
                "the accumulator vector is not the instruction's C registers per lane");
  static_assert(L::kAElements <= 16, "operands of at most 16 elements per lane");
  Block& blk = *tBlock;
  const int me = blk.current, base = (me / kWave) * kWave, l = me - base;
  for (int e = 0; e < L::kAElements; ++e) {
    blk.operands[me][0][e] = operandValue(a[e]);
    blk.operands[me][1][e] = operandValue(b[e]);
  }
  waveBarrier();
  // Each element from the lowest lane that holds it; a replica (gfx11's upper half-wave)
  // holding other bits is an error, as the hardware reads one copy only.
  float A[L::kM][L::kK], B[L::kK][L::kN];
  bool heldA[L::kM][L::kK] = {}, heldB[L::kK][L::kN] = {};
  int disagree = -1, disagreeElement = 0, disagreeOperand = 0;
  for (int lane = 0; lane < kWave; ++lane)
    for (int e = 0; e < L::kAElements; ++e)
      for (int operand = 0; operand < 2; ++operand) {
        const short* at = operand == 0 ? L::kA[lane][e] : L::kB[lane][e];
        float& slot = operand == 0 ? A[at[0]][at[1]] : B[at[0]][at[1]];
        bool& held = operand == 0 ? heldA[at[0]][at[1]] : heldB[at[0]][at[1]];
        const float value = blk.operands[base + lane][operand][e];
        if (!held) slot = value, held = true;
        else if (bitsOf(slot) != bitsOf(value) && disagree < 0)
          disagree = lane, disagreeElement = e, disagreeOperand = operand;
      }
  waveBarrier();
  if (disagree >= 0 && l == 0) {
    const short* at = disagreeOperand == 0 ? L::kA[disagree][disagreeElement] : L::kB[disagree][disagreeElement];
    fail("kernel '%s' workgroup (%lld, %lld, %lld) wave %d: %s's %c[%d][%d] differs between the "
         "lanes that hold it (lane %d element %d disagrees with a lower lane)",
         blk.kernel, (long long)blk.programId[0], (long long)blk.programId[1],
         (long long)blk.programId[2], me / kWave, L::kName, disagreeOperand == 0 ? 'A' : 'B', at[0],
         at[1], disagree, disagreeElement);
  }
  Acc d = c;
  for (int v = 0; v < L::kCElements; ++v) {
    const int row = L::kC[l][v][0], column = L::kC[l][v][1];
    float sum = c[v];
    for (int k = 0; k < L::kK; ++k) sum += A[row][k] * B[k][column];
    d[v] = sum;
  }
  return d;
}

}  // namespace wave_model
