// `tilejit run --target gfxN` where no AMD GPU exists: with TILEJIT_AMD_TOOLCHAIN=wave-model
// the op compiles for the CPU wave model and runs on its device (the reference check passes);
// without it, one error that says there is no AMD GPU and how to run the model.
// RUN: env TILEJIT_AMD_TOOLCHAIN=wave-model tilejit run merge_attn_states reshape_and_cache --target gfx950 --iterations 1 --shape num_tokens=8 --shape num_heads=4 --shape num_blocks=8 --no-cache | FileCheck %s --check-prefixes=MODEL,GFX950
// RUN: env TILEJIT_AMD_TOOLCHAIN=wave-model tilejit run merge_attn_states --target gfx1201 --iterations 1 --shape num_tokens=8 --shape num_heads=4 --no-cache | FileCheck %s --check-prefixes=MODEL,GFX1201
// RUN: env -u TILEJIT_AMD_TOOLCHAIN not tilejit run merge_attn_states --target gfx942 --iterations 1 --no-cache 2>&1 | FileCheck %s --check-prefix=NOGPU

// GFX950: device: gfx950 wave model on the host CPU
// GFX1201: device: gfx1201 wave model on the host CPU
// MODEL: merge_attn_states miss pass
// GFX950: reshape_and_cache miss pass

// NOGPU: target gfx942 cannot run here: no device here runs target 'gfx942'
// NOGPU-SAME: hip: no AMD GPU
// NOGPU-SAME: to run gfx942 on the CPU wave model instead, set TILEJIT_AMD_TOOLCHAIN=wave-model
