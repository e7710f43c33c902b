// The concrete toolchains' constructors, for tests that build one directly; each lives in its
// backend's folder, and createToolchain() reaches them through the backend registry.
#pragma once

#include "compiler/backends/cpu/host_cxx_toolchain.h"
#include "compiler/backends/cuda/nvrtc_toolchain.h"
