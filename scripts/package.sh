#!/usr/bin/env bash
# Builds the Debian package: build/hearsay_VERSION_amd64.deb (the dev build, configured and built
# if needed; `cpack` strips the binaries), prints its control fields and checks it with
# tests/install/check_package.sh: its file list and its computed dependencies (no CUDA library
# among them: the CUDA backend is optional).
#   bash scripts/package.sh          (after bash scripts/setup.sh)
# Install it with `sudo apt-get install ./build/hearsay_VERSION_amd64.deb`, remove it with
# `sudo apt-get remove hearsay`.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
build=${BUILD_DIR:-build}
if [ ! -f "$build/CMakeCache.txt" ]; then cmake --preset dev; fi
cmake --build "$build" -j "$(nproc)"
(cd "$build" && cpack -G DEB >cpack.log 2>&1) || { cat "$build/cpack.log"; exit 1; }
deb=$(ls -t "$build"/hearsay_*_*.deb | head -1)
echo "package: $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb --field "$deb" Package Version Architecture Depends Recommends Suggests
# Its fields and files, as the test suite checks them (no CUDA library among the dependencies).
bash tests/install/check_package.sh "$deb"
