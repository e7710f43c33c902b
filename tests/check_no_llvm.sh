#!/bin/sh
# The runtime-only bundle loader must not contain MLIR or LLVM (DESIGN principle 6): a serving
# engine that ships it should not carry the compiler. Counts demangled llvm::/mlir:: symbols.
# usage: check_no_llvm.sh BINARY
set -u
binary="$1"
if [ ! -f "$binary" ]; then
  echo "check_no_llvm: $binary does not exist" >&2
  exit 2
fi
symbols=$(nm -C "$binary") || { echo "check_no_llvm: nm failed on $binary" >&2; exit 2; }
count=$(printf '%s\n' "$symbols" | grep -c -E "llvm::|mlir::")
if [ "$count" -ne 0 ]; then
  echo "check_no_llvm: $binary holds $count llvm::/mlir:: symbols, e.g.:" >&2
  printf '%s\n' "$symbols" | grep -E "llvm::|mlir::" | head -5 >&2
  exit 1
fi
libraries=$(ldd "$binary" 2>/dev/null | grep -i -E "libLLVM|libMLIR" || true)
if [ -n "$libraries" ]; then
  echo "check_no_llvm: $binary links LLVM/MLIR shared libraries: $libraries" >&2
  exit 1
fi
echo "check_no_llvm: $binary: 0 llvm::/mlir:: symbols, no LLVM/MLIR libraries"
