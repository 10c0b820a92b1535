#!/usr/bin/env bash
# CPU emulation of two CUDA kernels (tensor_attention, small_linear) for machines without a GPU:
# their device code compiled as C++ over shim.h and compared with double-precision references.
# It checks indexing, masking and synchronisation logic, not the hardware, nvcc or the real WMMA
# fragment layouts; the CUDA tests on a GPU remain the proof. Usage: bash scripts/cuda_emulation/run.sh [--encoder]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${PYTHON:-python3}" "$here/extract.py" "$root" "$work"
# Half precision converts in hardware where the CPU has F16C (without it, in libgcc's software
# routines: over a third of the run). Both round alike: the results are the same bits.
# Without _FORTIFY_SOURCE (some compilers turn it on at -O2): its checked longjmp refuses a jump to
# another stack, which is how the emulated threads switch (shim.h).
flags=(-std=c++20 -O2 -pthread -U_FORTIFY_SOURCE)
if grep -qw f16c /proc/cpuinfo 2>/dev/null; then flags+=(-mf16c); fi
"${CXX:-g++}" "${flags[@]}" -I"$here" -I"$work" "$here/check_kernels.cpp" -o "$work/check_kernels"
"$work/check_kernels" "$@"
