#!/usr/bin/env bash
# Prepares a build for a bare GPU machine (CUDA, CMake and PyTorch there; no Qt, OpenBLAS or
# Debian -dev packages): builds the engine-only configuration here (builtin BLAS, one CUDA
# architecture, Release), then gathers into ONE folder, build-gpu/carry, everything a run on the
# GPU machine needs beside the repository: hearsay-cli, every core and kernels test executable
# (debug info stripped), the shared libraries such a machine lacks, the shared test data, and the
# paths the executables were compiled with (paths.env), and packs it as build-gpu/carry.tar.xz.
# It prints the archive's size and fails when it is over 48 MiB, the bound the project keeps the
# bundle under so that its growth (each test executable holds the kernels' fatbin) is noticed.
#
# Here:    bash scripts/gpu_bundle.sh            (CUDA_ARCH=90 for H100/H200 by default)
# There:   copy build-gpu/carry.tar.xz (about 13 MB) into the checkout, then:
#          bash scripts/gpu_session.sh check | test | bench SIZE... (it unpacks the archive;
#          see its header)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
arch=${CUDA_ARCH:-90}
build=build-gpu
jobs=${JOBS:-$(nproc)}

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHEARSAY_ENGINE_ONLY=ON -DHEARSAY_BLAS=builtin \
    -DHEARSAY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" >/dev/null
# Every kernels test, and the core tests that reach the CUDA backend (the others run the same on
# any machine); only those the engine-only configuration has (no Qt Multimedia or PortAudio tests).
known=$(ninja -C "$build" -t targets all | sed -n 's/^\(\(core\|kernels\)_tst_[a-z0-9_]*\): .*/\1/p' | sort -u)
targets=(hearsay-cli hearsay_cuda)  # the CUDA backend's module: lib/hearsay/libhearsay-cuda.so
for source in tests/kernels/tst_*.cpp $(grep -l -i -E "cuda|gpu" tests/core/tst_*.cpp); do
    target="$(basename "$(dirname "$source")")_$(basename "$source" .cpp)"
    grep -qx "$target" <<<"$known" && targets+=("$target")
done
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

carry="$build/carry"
rm -rf "$carry" && mkdir -p "$carry/bin" "$carry/tests" "$carry/lib/hearsay"
cp "$build/bin/hearsay-cli" "$carry/bin/"
# Found by the programs and tests as bin/../lib/hearsay (core/engine/cuda_module.h).
cp "$build/lib/hearsay/libhearsay-cuda.so" "$carry/lib/hearsay/"
for target in "${targets[@]:2}"; do cp "$build/tests/$target" "$carry/tests/"; done
strip --strip-debug "$carry"/bin/* "$carry"/tests/* "$carry"/lib/hearsay/*

# Libraries outside glibc, the compiler runtime and CUDA (which the GPU machine has).
for binary in "$carry"/bin/* "$carry"/tests/* "$carry"/lib/hearsay/*; do
    ldd "$binary" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
    case "$(basename "$lib")" in
        libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libgcc_s.so*|libcuda*|libcublas*|libcudart*) ;;
        *) cp -L "$lib" "$carry/lib/" ;;
    esac
done
# ICU's 31 MB data library is replaced by an empty one (scripts/gpu/icu_stub_data.c): Qt Core
# needs the library to load, the engine's tests need none of its data.
for data in "$carry"/lib/libicudata.so.*; do
    [ -e "$data" ] || continue
    version=${data##*.so.}
    rm "$data"
    cc -shared -fPIC -O2 -Wl,-soname,"libicudata.so.$version" -DICU_DATA_SYMBOL="icudt${version}_dat" \
        -o "$carry/lib/libicudata.so.$version" scripts/gpu/icu_stub_data.c
done

# The real tiny.en (scripts/fetch_real_models.sh) as ggml q4_0 (25 MB instead of 75): the weights
# that CUDA and the CPU both read in `gpu_session.sh real`.
real_models=${HEARSAY_TEST_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/hearsay/test-models}
if [ -f "$real_models/tiny.en/.stamp" ]; then
    mkdir -p "$carry/models"
    "$build/bin/hearsay-cli" convert --to ggml --dtype q4_0 "$real_models/tiny.en" "$carry/models/tiny.en-q4_0.bin"
else
    echo "gpu_bundle: no real tiny.en in $real_models (scripts/fetch_real_models.sh): 'gpu_session.sh real' will not run" >&2
fi

# The test data the executables read (their paths are compiled in; gpu_session.sh links them).
shared=$(sed -n 's/^HEARSAY_SHARED_DATA_DIR:PATH=//p' "$build/CMakeCache.txt")
cp -r "$shared" "$carry/shared-data"
chmod -R u+w "$carry/shared-data"  # the shared data is read-only; the next bundle must be able to delete the copy
{
    echo "SOURCE_DIR=$here"
    echo "BUILD_DIR=$here/$build"
    echo "SHARED_DATA_DIR=$shared"
    echo "COMMIT=$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo -dirty)"
    echo "CUDA_ARCH=$arch"
} >"$carry/paths.env"

# Every test executable holds the kernels' fatbin: the folder is large (97 MiB when last
# measured), the archive (13 MiB) a seventh of it.
archive="$build/carry.tar.xz"
tar -C "$build" -cf - carry | xz -T0 -6 >"$archive.part" && mv "$archive.part" "$archive"
echo "gpu_bundle: $(du -sh "$carry"/bin "$carry"/tests "$carry"/lib "$carry"/shared-data "$carry"/models | awk '{print $2 ": " $1}' | tr '\n' ' ')"
size_kib=$(du -sk "$archive" | cut -f1)
echo "gpu_bundle: carry $archive ($((size_kib / 1024)) MiB; unpacked $(du -sm "$carry" | cut -f1) MiB)"
if [ "$size_kib" -gt $((48 * 1024)) ]; then
    echo "gpu_bundle: $archive is over the bundle's 48 MiB bound; leave out what the GPU run does not need" >&2
    exit 1
fi
