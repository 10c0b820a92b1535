#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (CTest). This is the README's test command
# and what CI runs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bash scripts/setup.sh
cmake --preset dev
cmake --build build -j "$(nproc)"
ctest --test-dir build --output-on-failure -j "$(nproc)"
