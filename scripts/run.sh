#!/usr/bin/env bash
# Sets up, builds and starts the Hearsay desktop application.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bash scripts/setup.sh
cmake --preset dev
cmake --build build -j "$(nproc)" --target hearsay hearsay-cli
exec build/bin/hearsay "$@"
