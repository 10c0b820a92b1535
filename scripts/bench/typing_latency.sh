#!/usr/bin/env bash
# Commit-to-target latency of dictation into other applications: a committed piece is timed from
# the moment it is committed (DictateAnywhere::committed, the path the window's dictation takes)
# until the whole text is in a real target program, typed key by key and pasted through the
# clipboard; median and 90th percentile over REPEATS per length and target.
#   X11: an Xvfb of its own with a Qt editor in another process, xterm and st (ui.paste_x11)
#   Wayland: a headless sway with a Qt editor as a native Wayland client (ui.paste_wayland)
# Needs a build (bash scripts/test.sh, or cmake --preset dev && cmake --build build). Prints the
# lines and writes them, with the machine and the commit, to OUT.
#   bash scripts/bench/typing_latency.sh [REPEATS (default 20)] [OUT]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
repeats=${1:-20}
out=${2:-$here/scripts/bench/results-typing-latency-$(date +%F).txt}
build=${HEARSAY_BUILD:-$here/build}
for test in ui_tst_paste_x11 ui_tst_paste_wayland; do
    if [ ! -x "$build/tests/$test" ]; then
        echo "typing_latency: $build/tests/$test is missing: build first" >&2
        exit 1
    fi
done
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
lines=$state/lines
{
    echo "# Commit-to-target latency, $repeats repeats per length and target (scripts/bench/typing_latency.sh)"
    echo "# $(date -u +%F), commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"
} > "$lines"
# The suites' own environment as CTest gives it (tests/CMakeLists.txt): a journal of their own,
# the X11 typer for the X11 suite (the Wayland suite chooses wtype on its sway itself).
env XDG_STATE_HOME="$state/x11" HEARSAY_TYPER=x11 QT_QPA_PLATFORM=offscreen HEARSAY_MEASURE_TYPING=1 \
    HEARSAY_MEASURE_REPEATS="$repeats" "$build/tests/ui_tst_paste_x11" measureTypingAgainstPasting 2>&1 |
    grep -o 'typing-latency .*' >> "$lines"
env XDG_STATE_HOME="$state/wayland" QT_QPA_PLATFORM=offscreen HEARSAY_MEASURE_TYPING=1 \
    HEARSAY_MEASURE_REPEATS="$repeats" "$build/tests/ui_tst_paste_wayland" measureCommitToTarget 2>&1 |
    grep -o 'typing-latency .*' >> "$lines"
cp "$lines" "$out"
cat "$out"
echo "typing_latency: written to $out" >&2
