// One workgroup's lanes as fibers (ucontext) of one host thread, run round-robin; a fiber
// yields only while it waits in a workgroup barrier (s_barrier) or a wave barrier (every
// cross-lane operation), so the code between two synchronisation points runs lane after lane.
// A round in which no lane arrives anywhere or returns is a deadlock: the workgroup is
// abandoned and reported (report.h) with where each lane waits.
#pragma once

#include <stdlib.h>
#include <ucontext.h>

#include "tj_wave_model/report.h"

namespace wave_model {

constexpr int kWave = TJ_WAVE_MODEL_WAVE;
constexpr int kMaxLanes = 1024;
constexpr size_t kStackBytes = 256 * 1024;

// Where a lane is: running (or ready), waiting at the workgroup barrier, at its wave's
// barrier, or returned.
enum LaneState : char { kRunning, kAtWorkgroupBarrier, kAtWaveBarrier, kReturned };

// One workgroup in flight on this host thread.
struct Block {
  const char* kernel = "";
  int threads = 0;
  __INT64_TYPE__ programId[3] = {0, 0, 0};
  __INT64_TYPE__ numPrograms[3] = {1, 1, 1};
  ucontext_t scheduler;
  ucontext_t lanes[kMaxLanes];
  LaneState state[kMaxLanes];
  int current = 0;
  // Arrivals and returns so far: a scheduling round that does not change it is a deadlock.
  unsigned long long progress = 0;
  // Lanes that have returned count as arrived at every later barrier (as a wave that has
  // ended no longer holds up s_barrier), so an early return cannot hang the workgroup.
  int blockArrived = 0, blockFinished = 0;
  unsigned blockGeneration = 0;
  int waveArrived[kMaxLanes / kWave], waveFinished[kMaxLanes / kWave];
  unsigned waveGeneration[kMaxLanes / kWave];
  unsigned long long words[kMaxLanes];  // one cross-lane slot per lane
  float operands[kMaxLanes][2][16];     // a and b of one matrix instruction per lane
  void (*body)(const void*);
  const void* args;
};

inline thread_local Block* tBlock = nullptr;

inline void yield() {
  Block& b = *tBlock;
  swapcontext(&b.lanes[b.current], &b.scheduler);
}

inline int lane() { return tBlock->current; }
inline int waveLane() { return tBlock->current % kWave; }

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
  ++b.progress;
  ++b.blockArrived;
  if (release(b.blockArrived, b.blockFinished, b.threads, b.blockGeneration)) return;
  b.state[b.current] = kAtWorkgroupBarrier;
  while (b.blockGeneration == generation) yield();
  b.state[b.current] = kRunning;
}
inline void waveBarrier() {
  Block& b = *tBlock;
  const int wave = b.current / kWave;
  const unsigned generation = b.waveGeneration[wave];
  ++b.progress;
  ++b.waveArrived[wave];
  if (release(b.waveArrived[wave], b.waveFinished[wave], kWave, b.waveGeneration[wave])) return;
  b.state[b.current] = kAtWaveBarrier;
  while (b.waveGeneration[wave] == generation) yield();
  b.state[b.current] = kRunning;
}

inline void laneMain() {
  Block& b = *tBlock;
  b.body(b.args);
  b.state[b.current] = kReturned;  // returns to the scheduler (uc_link)
  ++b.progress;
  const int wave = b.current / kWave;
  release(b.blockArrived, ++b.blockFinished, b.threads, b.blockGeneration);
  release(b.waveArrived[wave], ++b.waveFinished[wave], kWave, b.waveGeneration[wave]);
}

// "lanes 0-15 wait at the workgroup barrier (s_barrier); lanes 16-63 wait at wave 0's
// barrier (a cross-lane operation); ..." for every run of lanes in one state.
inline void describeLanes(const Block& b, char* out, size_t capacity) {
  static const char* const kWhere[] = {"are running", "wait at the workgroup barrier (s_barrier)",
                                       "wait at wave %d's barrier (a cross-lane operation)",
                                       "have returned"};
  size_t used = 0;
  out[0] = '\0';
  // Lanes in one state, and at a wave barrier in one wave, form one run.
  auto key = [&](int lane) {
    return b.state[lane] * kMaxLanes + (b.state[lane] == kAtWaveBarrier ? lane / kWave : 0);
  };
  for (int first = 0, t = 0; t < b.threads; first = t) {
    while (t < b.threads && key(t) == key(first)) ++t;
    char where[96];
    snprintf(where, sizeof(where), kWhere[b.state[first]], first / kWave);
    const int n = snprintf(out + used, capacity - used, "%slanes %d-%d %s", first ? "; " : "",
                           first, t - 1, where);
    if (n < 0 || size_t(n) >= capacity - used) break;  // truncated
    used += size_t(n);
  }
}

inline void reportDeadlock(const Block& b) {
  char lanes[kMessageBytes / 2];
  describeLanes(b, lanes, sizeof(lanes));
  fail("kernel '%s' deadlocked in workgroup (%lld, %lld, %lld) of %d lanes (wave %d): no lane "
       "can move: %s. The lanes a barrier waits for never reach it: a barrier or cross-lane "
       "operation under divergent control flow?",
       b.kernel, (long long)b.programId[0], (long long)b.programId[1], (long long)b.programId[2],
       b.threads, kWave, lanes);
}

// Runs one workgroup: `threads` fibers round-robin until every one has returned or none can
// move. False where it did not finish (reported).
inline bool runBlock(const char* kernel, void (*body)(const void*), const void* args, int threads,
                     const __INT64_TYPE__ programId[3], const __INT64_TYPE__ numPrograms[3]) {
  static thread_local Block* block = new Block();
  static thread_local char* stacks = static_cast<char*>(malloc(kStackBytes * kMaxLanes));
  if (!stacks || !block) {
    fail("kernel '%s': cannot allocate the fibers' stacks of a workgroup; it did not run", kernel);
    return false;
  }
  Block& b = *block;
  b.kernel = kernel;
  b.threads = threads;
  b.body = body;
  b.args = args;
  for (int i = 0; i < 3; ++i) b.programId[i] = programId[i], b.numPrograms[i] = numPrograms[i];
  b.blockArrived = b.blockFinished = 0;
  b.progress = 0;
  for (int w = 0; w < kMaxLanes / kWave; ++w) b.waveArrived[w] = b.waveFinished[w] = 0;
  tBlock = &b;
  for (int t = 0; t < threads; ++t) {
    b.state[t] = kRunning;
    getcontext(&b.lanes[t]);
    b.lanes[t].uc_stack.ss_sp = stacks + size_t(t) * kStackBytes;
    b.lanes[t].uc_stack.ss_size = kStackBytes;
    b.lanes[t].uc_link = &b.scheduler;
    makecontext(&b.lanes[t], laneMain, 0);
  }
  bool finished = true;
  for (bool running = true; running;) {
    running = false;
    const unsigned long long before = b.progress;
    for (int t = 0; t < threads; ++t) {
      if (b.state[t] == kReturned) continue;
      b.current = t;
      swapcontext(&b.scheduler, &b.lanes[t]);
      running = true;
    }
    // The waiting lanes' fibers are abandoned: the next workgroup makes them afresh.
    if (running && b.progress == before) {
      reportDeadlock(b);
      finished = false;
      break;
    }
  }
  tBlock = nullptr;
  return finished;
}

}  // namespace wave_model
