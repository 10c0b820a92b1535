#!/usr/bin/env bash
# Prepares a build for a bare GPU machine (CUDA, CMake and PyTorch there; no Qt, OpenBLAS or
# Debian -dev packages): builds the engine-only configuration here (builtin BLAS, one CUDA
# architecture, Release) and copies the shared libraries it needs that such a machine lacks into
# build-gpu/lib-carry, then prints the size to carry (the device tool carries 64 MiB at most).
#
# Here:    bash scripts/gpu_bundle.sh            (CUDA_ARCH=90 for H100/H200 by default)
#          mkdir -p .shared && cp -r ../shared/data .shared/   (the clips and vocabularies)
# There:   carry build-gpu and .shared, then run from the repository root:
#          mkdir -p /work && ln -sfn "$PWD" /work/main && ln -sfn "$PWD/.shared" /work/shared
#          export LD_LIBRARY_PATH=$PWD/build-gpu/lib-carry
#          (carry build-gpu/bin, build-gpu/tests, build-gpu/lib-carry and .shared: about 35 MB)
#          build-gpu/tests/kernels_tst_cuda_ops; build-gpu/bin/hearsay-cli bench --backend cuda ...
# (the tests find their data through the absolute paths compiled in, hence the links).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
arch=${CUDA_ARCH:-90}
build=build-gpu

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHEARSAY_ENGINE_ONLY=ON -DHEARSAY_BLAS=builtin \
    -DHEARSAY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" >/dev/null
targets=(hearsay-cli core_tst_engine_reference core_tst_engine_switches)
for source in tests/kernels/tst_*.cpp; do
    name=$(basename "$source" .cpp)
    targets+=("kernels_$name")
done
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

# Libraries outside glibc, the compiler runtime and CUDA (which the GPU machine has).
carry="$build/lib-carry"
rm -rf "$carry" && mkdir -p "$carry"
for binary in "$build"/bin/hearsay-cli "$build"/tests/*; do
    [ -x "$binary" ] && [ -f "$binary" ] || continue
    ldd "$binary" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
    case "$(basename "$lib")" in
        libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libgcc_s.so*|libcuda*|libcublas*|libcudart*) ;;
        *) cp -L "$lib" "$carry/" ;;
    esac
done
# ICU's 31 MB data library is replaced by an empty one (scripts/gpu/icu_stub_data.c): Qt Core
# needs the library to load, the engine's tests need none of its data.
for data in "$carry"/libicudata.so.*; do
    [ -e "$data" ] || continue
    version=${data##*.so.}
    rm "$data"
    cc -shared -fPIC -O2 -Wl,-soname,"libicudata.so.$version" -DICU_DATA_SYMBOL="icudt${version}_dat" \
        -o "$carry/libicudata.so.$version" scripts/gpu/icu_stub_data.c
done
echo "gpu_bundle: $(du -sh "$build/bin" "$build/tests" "$carry" | awk '{print $2 ": " $1}' | tr '\n' ' ')"
echo "gpu_bundle: carry build-gpu/bin, build-gpu/tests, build-gpu/lib-carry and .shared ($(du -shc "$build/bin" "$build/tests" "$carry" | tail -1 | cut -f1) plus the data)"
