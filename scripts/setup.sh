#!/usr/bin/env bash
# Installs exactly what tilejit needs from Debian (see ../shared/TOOLCHAIN.md). Idempotent:
# packages already present are not touched and apt is not even consulted.
set -euo pipefail
packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools libzstd-dev clang-22 lld-22
          cmake ninja-build ccache libabsl-dev libgtest-dev libgmock-dev nlohmann-json3-dev g++ python3
          libamd-comgr-dev libamdhip64-dev rocm-device-libs hipcc libclang-22-dev liblld-22-dev
          libclang-rt-22-dev libhiredis-dev redis-server python3-torch python3-pytest python3-venv
          python3-setuptools python3-wheel python3-pip)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
