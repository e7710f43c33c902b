// The wave model's error channel. A kernel entry returns nothing, so what goes wrong inside a
// workgroup (a deadlock, operands a matrix instruction reads from two lanes that disagree, no
// memory for the fibers) is recorded here, first error wins, and written to stderr; the
// device asks for it after every launch through `tilejit_entry_error` and fails the launch
// with it.
#pragma once

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

namespace wave_model {

constexpr int kMessageBytes = 2048;
// Per kernel object (the objects are loaded RTLD_LOCAL): 0 none, 1 being written, 2 set.
__attribute__((visibility("hidden"))) inline int gErrorState = 0;
__attribute__((visibility("hidden"))) inline char gErrorMessage[kMessageBytes];

// Records the launch's first error; workgroups run on several host threads at once.
__attribute__((format(printf, 1, 2))) inline void fail(const char* format, ...) {
  int none = 0;
  if (!__atomic_compare_exchange_n(&gErrorState, &none, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return;
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(gErrorMessage, kMessageBytes, format, arguments);
  va_end(arguments);
  __atomic_store_n(&gErrorState, 2, __ATOMIC_RELEASE);
  (void)write(2, "tilejit wave model: ", 20);
  (void)write(2, gErrorMessage, strlen(gErrorMessage));
  (void)write(2, "\n", 1);
}

}  // namespace wave_model

// 1 and the message (NUL-terminated, truncated to `capacity`) if a workgroup failed since
// the last call, which clears it; 0 otherwise. Called between launches only.
extern "C" __attribute__((visibility("default"), used)) int tilejit_entry_error(char* message,
                                                                                unsigned long capacity) {
  if (__atomic_load_n(&wave_model::gErrorState, __ATOMIC_ACQUIRE) != 2) return 0;
  if (capacity > 0) {
    strncpy(message, wave_model::gErrorMessage, capacity - 1);
    message[capacity - 1] = '\0';
  }
  __atomic_store_n(&wave_model::gErrorState, 0, __ATOMIC_RELEASE);
  return 1;
}
