#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, the `fuzz` preset: clang, ASan + UBSan) and runs each
# for FUZZ_SECONDS (default 60) on its committed seed corpus (tests/fuzz/corpus/<target>), plus,
# for the model loaders, whole small models made by the main build's hearsay-cli when it exists.
# Every input that crashes, hangs (FUZZ_TIMEOUT, default 10 s) or leaks is kept under
# build-fuzz/findings/<target>/ and makes the script fail. The seed is fixed (FUZZ_SEED, default 1),
# so a run repeats the same inputs on the same corpus. The executions, coverage and features
# of each run go to build-fuzz/fuzz-results.md.
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh            # a longer campaign
#   bash scripts/fuzz.sh fuzz_ggml fuzz_json          # only these targets
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
seconds=${FUZZ_SECONDS:-60}
seed=${FUZZ_SEED:-1}  # a fixed seed: the same run every time (FUZZ_SEED=0: libFuzzer picks one)
timeout=${FUZZ_TIMEOUT:-10}
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
    echo "| target | seconds | executions | exec/s | coverage (edges) | features | corpus files | findings |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
} > "$results"
failed=0
for t in "${targets[@]}"; do
    work=build-fuzz/corpus/$t findings=build-fuzz/findings/$t
    rm -rf "$findings"
    mkdir -p "$work" "$findings"
    seeds=(tests/fuzz/corpus/"$t")
    [ -d "$generated/$t" ] && seeds+=("$generated/$t")
    log=build-fuzz/$t.log
    echo "== $t: ${seconds} s"
    set +e
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
        build-fuzz/bin/"$t" "$work" "${seeds[@]}" -max_total_time="$seconds" -timeout="$timeout" \
        -rss_limit_mb=4096 -max_len=2097152 -seed="$seed" -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    set -e
    runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
    ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
    files=$(find "$work" -type f | wc -l)
    found=$(find "$findings" -type f | wc -l)
    echo "| $t | $seconds | ${runs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | $files | $found |" >> "$results"
    if [ $rc -ne 0 ] || [ "$found" -ne 0 ]; then
        failed=1
        echo "fuzz.sh: $t failed (exit $rc); its inputs are in $findings; the end of $log:"
        tail -40 "$log"
    fi
done
cat "$results"
rm -rf /dev/shm/hearsay-fuzz-* 2>/dev/null || true
exit $failed
