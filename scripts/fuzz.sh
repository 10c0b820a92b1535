#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, the `fuzz` preset: clang, ASan + UBSan) and runs each
# from its committed seed corpus (tests/fuzz/corpus/<target>) and every past finding
# (tests/fuzz/regressions/<target>), plus, for the model loaders, whole small models made by the
# main build's hearsay-cli when it exists.
#
# Two ways to bound a run:
# - by executions (the default, what the test command runs): each target runs the fixed count in
#   tests/fuzz/runs.txt (FUZZ_RUNS overrides it for all), from a fresh working corpus and a fixed
#   seed (FUZZ_SEED, default 1). A fast and a slow machine then execute the same number of inputs
#   from the same start: the result depends on the commit, not on the machine's speed. (Runs
#   repeat exactly where a target keeps no address-dependent state: fuzz_ggml gave the same
#   coverage, features and corpus in two runs and on another clone; fuzz_tokenizer's coverage
#   varied by about 1%.)
# - by time (FUZZ_SECONDS=N): a campaign, `FUZZ_SECONDS=600 bash scripts/fuzz.sh` for ten minutes a
#   target; the working corpus (build-fuzz/corpus/<target>) grows across campaigns.
# Every input that crashes, hangs (FUZZ_TIMEOUT, default 30 s) or leaks (third-party leaks listed in
# tests/sanitizers/lsan.supp aside) is kept under
# build-fuzz/findings/<target>/ and makes the script fail; copy it to tests/fuzz/regressions/
# <target>/ with the fix, so that the ordinary test build replays it (fuzz.<name> in CTest). The
# executions, coverage and features of each run go to build-fuzz/fuzz-results.md.
#   bash scripts/fuzz.sh                              # the bounded run, every target
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh fuzz_json   # ten minutes of one target
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
seconds=${FUZZ_SECONDS:-}
seed=${FUZZ_SEED:-1}  # a fixed seed: the same run every time (FUZZ_SEED=0: libFuzzer picks one)
timeout=${FUZZ_TIMEOUT:-30}
# The executions of a bounded run: the target's line in tests/fuzz/runs.txt, or FUZZ_RUNS.
runs_for() {
    if [ -n "${FUZZ_RUNS:-}" ]; then echo "$FUZZ_RUNS"; return; fi
    local n
    n=$(awk -v t="$1" '$1 == t { print $2 }' tests/fuzz/runs.txt)
    if [ -z "$n" ]; then
        echo "fuzz.sh: $1 has no execution count in tests/fuzz/runs.txt" >&2
        return 1
    fi
    echo "$n"
}
cmake --preset fuzz >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target fuzz_targets

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi

# Whole (tiny-dimension) model files as extra seeds for the model loaders.
generated=build-fuzz/generated-seeds
rm -rf "$generated"
mkdir -p "$generated/fuzz_ggml" "$generated/fuzz_ctranslate2"
cli=build/bin/hearsay-cli
if [ -x "$cli" ]; then
    "$cli" make-test-model --dims 64x1x1 --seed 1 --format ggml "$generated/fuzz_ggml/model-64x1x1.bin" >/dev/null
    "$cli" make-test-model --dims 64x1x1 --seed 1 --format hf "$generated/hf" >/dev/null
    "$cli" convert --to ct2 "$generated/hf" "$generated/ct2" >/dev/null
    cp "$generated/ct2/model.bin" "$generated/fuzz_ctranslate2/model-64x1x1.bin"
else
    echo "fuzz.sh: $cli not built; the model loaders start from the small seeds only"
fi

results=build-fuzz/fuzz-results.md
{
    echo "| target | bound | executions | seconds | exec/s | coverage (edges) | features | corpus files | findings |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
} > "$results"
# One target's run: its row of the table in build-fuzz/<target>.row, and on failure the end of its
# log in build-fuzz/<target>.failure.
run_target() {
    local t=$1 work=build-fuzz/corpus/$1 findings=build-fuzz/findings/$1 n bound label seeds log start rc took
    local executed rate cov ft files found
    rm -rf "$findings" "build-fuzz/$t.row" "build-fuzz/$t.failure"
    if [ -z "$seconds" ]; then
        n=$(runs_for "$t")
        bound=(-runs="$n")
        label="$n runs"
        rm -rf "$work"  # a fresh working corpus: the run depends on the commit alone
    else
        bound=(-max_total_time="$seconds")
        label="$seconds s"
    fi
    mkdir -p "$work" "$findings"
    seeds=(tests/fuzz/corpus/"$t")
    [ -d tests/fuzz/regressions/"$t" ] && seeds+=(tests/fuzz/regressions/"$t")
    [ -d "$generated/$t" ] && seeds+=("$generated/$t")
    log=build-fuzz/$t.log
    echo "== $t: $label"
    start=$(date +%s)
    set +e
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
        LSAN_OPTIONS=suppressions=$here/tests/sanitizers/lsan.supp:print_suppressions=0 \
        build-fuzz/bin/"$t" "$work" "${seeds[@]}" "${bound[@]}" -timeout="$timeout" \
        -rss_limit_mb=4096 -max_len=2097152 -seed="$seed" -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    set -e
    took=$(( $(date +%s) - start ))
    # (a run that died early printed none of these: its row says "?")
    executed=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1 || true)
    rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1 || true)
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || true)
    ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || true)
    files=$(find "$work" -type f | wc -l)
    found=$(find "$findings" -type f | wc -l)
    echo "| $t | $label | ${executed:-?} | $took | ${rate:-?} | ${cov:-?} | ${ft:-?} | $files | $found |" > "build-fuzz/$t.row"
    if [ $rc -ne 0 ] || [ "$found" -ne 0 ]; then
        { echo "fuzz.sh: $t failed (exit $rc); its inputs are in $findings; the end of $log:"; tail -40 "$log"; } > "build-fuzz/$t.failure"
    fi
}
# The targets run side by side, one a core: each is one process, and its inputs do not depend on
# what runs beside it (the executions are counted; a timed campaign gives each target a core).
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
    run_target "$t" &
done
wait
failed=0
for t in "${targets[@]}"; do
    if [ -f "build-fuzz/$t.row" ]; then cat "build-fuzz/$t.row" >> "$results"
    else echo "| $t | | ? | | | | | | |" >> "$results"; failed=1; fi
    if [ -f "build-fuzz/$t.failure" ]; then
        failed=1
        cat "build-fuzz/$t.failure"
    fi
done
cat "$results"
rm -rf /dev/shm/hearsay-fuzz-* 2>/dev/null || true
exit $failed
