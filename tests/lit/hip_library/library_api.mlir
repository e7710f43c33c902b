// Every function of the HIP device library compiles for the five AMD targets, also those the
// shipped templates do not call (library_api.cpp). Compile-only: not run on AMD silicon.
// RUN: for t in gfx90a gfx942 gfx950 gfx1100 gfx1201; do \
// RUN:   clang++ -x hip --offload-arch=$t --offload-device-only --no-gpu-bundle-output \
// RUN:     -nogpuinc -nogpulib -O3 -mcode-object-version=5 -I%templates/device/hip \
// RUN:     -I%templates/device/common -c %S/library_api.cpp -o %t.$t.co || exit 1; \
// RUN:   llvm-readelf --notes %t.$t.co | grep -q "\.name: *api" || exit 1; echo "$t compiled"; \
// RUN: done | FileCheck %s
// CHECK: gfx90a compiled
// CHECK: gfx942 compiled
// CHECK: gfx950 compiled
// CHECK: gfx1100 compiled
// CHECK: gfx1201 compiled
