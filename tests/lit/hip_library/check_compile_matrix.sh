#!/bin/sh
# Compiles the HIP translation unit of every shipped template (and paged_decode with the
# shuffled cache, with f16, with fp8 caches of both formats and both scale kinds, and
# reshape_and_cache writing fp8) for each AMD target with clang's AMDGPU backend over the HIP
# device library (templates/device/hip + common, no HIP headers, no device libraries), and
# checks the code object's amdhsa.kernels note: no scratch, no spills, LDS within the
# target's budget, the target's wave size; and, where the template has a dot on 16-bit
# operands, that the disassembly holds the target's matrix instructions (v_mfma on gfx9,
# v_wmma on gfx11/gfx12).
# The wave size and LDS budget come from the target table (`tilejit targets`).
# TJ_COMPILE_CASES replaces the case list ("template[:param=value]" words).
# Prints one row per target and case: target case sgpr vgpr agpr lds scratch spills.
# Cases in KNOWN_FILE ("target case" a line) are known to spill or use scratch: they are
# reported, not failed, and a listed case that no longer does fails (the list stays true).
# usage: check_compile_matrix.sh DEVICE_DIR WORK_DIR KNOWN_FILE [TARGET...]
set -u
device="$1"
work="$2"
known_file="$3"
shift 3
targets="${*:-gfx90a gfx942 gfx950 gfx1100 gfx1201}"
clang="${TJ_HIP_CLANG:-/usr/lib/llvm-22/bin/clang++}"
readelf="${TJ_HIP_READELF:-llvm-readelf}"
objdump="${TJ_HIP_OBJDUMP:-llvm-objdump}"
for tool in "$clang" "$readelf" "$objdump" tilejit; do
  command -v "$tool" >/dev/null 2>&1 || { echo "check_compile_matrix: $tool not found" >&2; exit 2; }
done
mkdir -p "$work"
table=$(tilejit targets) || { echo "check_compile_matrix: tilejit targets failed" >&2; exit 2; }
failures=0
fail() {
  echo "FAIL $1" >&2
  failures=$((failures + 1))
}
# note FIELD: the value of one field of the single kernel's metadata.
note() {
  printf '%s\n' "$notes" | sed -n "s/^[ -]*\.$1: *//p" | head -1
}
for target in $targets; do
  row=$(printf '%s\n' "$table" | awk -v t="$target" '$1 == t')
  [ -n "$row" ] || { fail "$target: not in the target table"; continue; }
  # Columns from the end: ... warp SM/CU shared_KB compiles runs.
  wave=$(printf '%s\n' "$row" | awk '{print $(NF-4)}')
  lds_budget=$(( $(printf '%s\n' "$row" | awk '{print $(NF-2)}') * 1024 ))
  case "$target" in
    gfx9*) matrix=v_mfma ;;
    *) matrix=v_wmma ;;
  esac
  # A case is TEMPLATE[:NAME=VALUE[,NAME=VALUE...]]; TJ_COMPILE_CASES replaces the list.
  for case in ${TJ_COMPILE_CASES:-paged_decode paged_decode:kv_layout=shuffled paged_decode:dtype=f16,kv_dtype=f16 \
              paged_decode:kv_dtype=f8E4M3FN paged_decode:kv_dtype=f8E5M2,kv_scale=per_head \
              paged_decode:kv_dtype=f8E4M3FN,kv_scale=per_head,sinks=1,gqa_ratio=71 \
              merge_attn_states reshape_and_cache reshape_and_cache:kv_dtype=f8E4M3FN \
              reshape_and_cache:kv_dtype=f8E5M2,kv_scale=per_head paged_decode_reduce}; do
    template=${case%%:*}
    name=$(printf '%s' "$case" | tr ':=,' '___')
    set -- compile "$template" --target "$target" --emit cpp
    if [ "$case" != "$template" ]; then
      for assignment in $(printf '%s' "${case#*:}" | tr ',' ' '); do set -- "$@" -p "$assignment"; done
    fi
    tu="$work/$target.$name.cpp"
    co="$work/$target.$name.co"
    tilejit "$@" > "$tu" 2> "$work/$target.$name.emit.log" || { fail "$target $case: emission failed"; continue; }
    if ! "$clang" -x hip --offload-arch="$target" --offload-device-only --no-gpu-bundle-output \
         -nogpuinc -nogpulib -O3 -mcode-object-version=5 -I"$device/hip" -I"$device/common" \
         -c "$tu" -o "$co" 2> "$work/$target.$name.log"; then
      fail "$target $case: does not compile"
      head -20 "$work/$target.$name.log" >&2
      continue
    fi
    notes=$("$readelf" --notes "$co")
    sgpr=$(note sgpr_count); vgpr=$(note vgpr_count); agpr=$(note agpr_count)
    lds=$(note group_segment_fixed_size); scratch=$(note private_segment_fixed_size)
    sgpr_spills=$(note sgpr_spill_count); vgpr_spills=$(note vgpr_spill_count)
    wave_seen=$(note wavefront_size)
    echo "$target $case sgpr=$sgpr vgpr=$vgpr agpr=${agpr:-none} lds=$lds scratch=$scratch spills=$((sgpr_spills + vgpr_spills))"
    if grep -q -x "$target $case" "$known_file"; then
      if [ "$scratch" = 0 ] && [ "$sgpr_spills" = 0 ] && [ "$vgpr_spills" = 0 ]; then
        fail "$target $case: listed in $known_file but neither spills nor uses scratch now"
      else
        echo "KNOWN $target $case: scratch $scratch, spills sgpr $sgpr_spills vgpr $vgpr_spills"
      fi
    else
      [ "$scratch" = 0 ] || fail "$target $case: $scratch bytes of scratch per lane"
      [ "$sgpr_spills" = 0 ] && [ "$vgpr_spills" = 0 ] || fail "$target $case: spills (sgpr $sgpr_spills, vgpr $vgpr_spills)"
    fi
    [ "$lds" -le "$lds_budget" ] || fail "$target $case: LDS $lds exceeds $lds_budget"
    [ "$wave_seen" = "$wave" ] || fail "$target $case: wave size $wave_seen, the target table says $wave"
    if grep -q "tj::dot<" "$tu"; then
      count=$("$objdump" -d "$co" | grep -c "$matrix")
      [ "$count" -gt 0 ] || fail "$target $case: a dot on 16-bit operands without $matrix"
    fi
  done
done
if [ "$failures" -ne 0 ]; then
  echo "check_compile_matrix: $failures failures" >&2
  exit 1
fi
echo "check_compile_matrix: all cases compile within their budgets"
