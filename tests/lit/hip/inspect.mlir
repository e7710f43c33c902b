// `tilejit compile --emit asm|binary|resources` on AMD targets, over a stand-in device library
// (Inputs/device) and a test kernel of its own: the assembly of the target's ISA, and a code
// object v5 (ELF ABI version 3) for EM_AMDGPU that exports the kernel.
// RUN: env TILEJIT_DEVICE_LIB_DIR=%S/Inputs/device tilejit compile %S/Inputs/copy_scalar.tj --target gfx942 --emit asm --no-cache | FileCheck %s --check-prefixes=ASM,GFX942
// RUN: env TILEJIT_DEVICE_LIB_DIR=%S/Inputs/device tilejit compile %S/Inputs/copy_scalar.tj --target gfx1201 --emit asm --no-cache | FileCheck %s --check-prefixes=ASM,GFX1201
// comgr (named; ROCm 5.2 here) prints its own listing for a target it lists.
// RUN: env TILEJIT_AMD_TOOLCHAIN=comgr TILEJIT_DEVICE_LIB_DIR=%S/Inputs/device tilejit compile %S/Inputs/copy_scalar.tj --target gfx90a --emit asm --no-cache | FileCheck %s --check-prefixes=ASM,GFX90A
// RUN: env TILEJIT_DEVICE_LIB_DIR=%S/Inputs/device tilejit compile %S/Inputs/copy_scalar.tj --target gfx950 --emit binary --no-cache -o %t.co
// RUN: llvm-readelf -h -s --notes %t.co | FileCheck %s --check-prefix=BINARY
// RUN: env TILEJIT_DEVICE_LIB_DIR=%S/Inputs/device tilejit compile %S/Inputs/copy_scalar.tj --target gfx942 --emit resources --no-cache | FileCheck %s --check-prefixes=RESOURCES,RES942
// RUN: env TILEJIT_DEVICE_LIB_DIR=%S/Inputs/device tilejit compile %S/Inputs/copy_scalar.tj --target gfx1201 --emit resources --no-cache | FileCheck %s --check-prefixes=RESOURCES,RES1201
// RUN: env TILEJIT_AMD_TOOLCHAIN=hiprtc TILEJIT_DEVICE_LIB_DIR=%S/Inputs/device not tilejit compile %S/Inputs/copy_scalar.tj --target gfx942 --emit binary --no-cache 2>&1 | FileCheck %s --check-prefix=HIPRTC

// ASM: .amdgcn_target "amdgcn-amd-amdhsa--[[TARGET:gfx[0-9a-f]+]]
// ASM: tj_copy_scalar:
// GFX942: ds_write_b32
// GFX942: s_barrier
// GFX1201: ds_store_b32
// GFX1201: s_barrier_signal -1
// GFX90A: ds_write_b32
// ASM: s_endpgm
// ASM: .amdhsa_kernel tj_copy_scalar
// ASM: .amdhsa_group_segment_fixed_size 256

// BINARY: ABI Version: 3
// BINARY: Machine: EM_AMDGPU
// BINARY: gfx950
// BINARY: FUNC {{.*}} tj_copy_scalar{{$}}
// BINARY: .group_segment_fixed_size: 256
// BINARY: .name: tj_copy_scalar
// BINARY: .wavefront_size: 64

// HIPRTC: hiprtc is not handed gfx942
// HIPRTC: does not know gfx942; it lists

// RESOURCES: kernel tj_copy_scalar ([[TARGET:gfx[0-9]+]], hip)
// RESOURCES: registers per thread: [[VGPRS:[0-9]+]]
// RESOURCES: shared memory: 256 bytes static
// RESOURCES: amdgpu: sgpr {{[0-9]+}}, vgpr [[VGPRS]], agpr 0; lds 256 bytes; scratch 0 bytes per lane; spills: sgpr 0, vgpr 0;
// RES942-SAME: wave size 64
// RES1201-SAME: wave size 32
// RES942: occupancy estimate: 8 waves per SIMD (registers allow 8, lds 8)
// RES1201: occupancy estimate: 16 waves per SIMD (registers allow 16, lds 16)
