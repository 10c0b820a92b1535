#!/usr/bin/env bash
# The steps of a run on a GPU machine. Prepare on the build machine with
# `bash scripts/gpu_bundle.sh` (it packs build-gpu/carry.tar.xz), copy the archive into the GPU
# machine's checkout of the same commit, then run the steps there from the repository root, one
# subcommand at a time; the first one unpacks the archive into build-gpu/carry (tar, or Python's
# tarfile where tar lacks xz):
#
#   bash scripts/gpu_session.sh check              GPU, driver, libraries, python/torch/transformers,
#                                                  compute-sanitizer, the GPU peak probe (~1 min)
#   bash scripts/gpu_session.sh test               kernels tests (fails if any skips), core tests (SUITES: a
#                                                  regular expression picking some), then
#                                                  compute-sanitizer on the kernels tests (TEST_SANITIZE_S,
#                                                  default 180 s in all)
#   bash scripts/gpu_session.sh sanitize [TOOL...] compute-sanitizer only (memcheck racecheck synccheck)
#   bash scripts/gpu_session.sh bench SIZE...      bench --backend cuda --precision fp16 on each size with
#                                                  transformers' static cache on the same GPU (one run)
#   bash scripts/gpu_session.sh bench-fp32 SIZE... the same with --precision fp32 (peer in float32)
#   bash scripts/gpu_session.sh bench-baseline SIZE... fp16 with the newest kernels off
#                                                  (HEARSAY_CUDA_DISABLE=small-linear,tensor-attention,
#                                                  split-attention,lt-bias,half-kv): their A/B, *-baseline
#   bash scripts/gpu_session.sh models SIZE...     only write the random models (kept for later steps)
#   bash scripts/gpu_session.sh render             tables.md from every result of this machine so far
#   bash scripts/gpu_session.sh real               CUDA against CPU tokens on the real tiny.en (the bundle's
#                                                  q4_0 copy), then memcheck over one transcription
#   bash scripts/gpu_session.sh profile            each kernel's GPU time (Nsight Compute) over one greedy
#                                                  transcription of jfk.wav with the real tiny.en, summed
#                                                  per decode step and per kernel (kernel-times.md)
#   bash scripts/gpu_session.sh all SIZE...        check, tests, real, bench SIZE..., memcheck on the
#                                                  kernels suites, each step capped so that the whole
#                                                  ends within BUDGET_S; one archive, gpu-results.tar.gz
#
# The usual order: check; test; bench tiny base small; bench medium large-v3-turbo; bench
# large-v3; bench-fp32 tiny; bench-baseline tiny large-v3. Models, results and logs stay in
# build-gpu/state between steps on the same machine (render reads all of them). Each step copies
# its logs, up to four JSON reports and tables.md to the results folder: $GPU_RESULTS_DIR
# (or $OUT), default build-gpu/out; results.tar.gz there holds every report.
# Environment: BENCH_ARGS (extra bench options), PEERS (default
# transformers-static), LENGTHS (cache table, default 20,128,224), BUDGET_S (seconds a step may
# take, the steps of `all` together; default 560),
# PEERS_PYTHON (default: python3). Dry run of the bench pipeline without a GPU:
#   BENCH_BACKEND=cpu PEERS_PYTHON=.venv-reference/bin/python BENCH_ARGS="--repeats 1 --decode-steps 16" \
#   bash scripts/gpu_session.sh bench tiny
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
carry="$root/build-gpu/carry"
out=${GPU_RESULTS_DIR:-${OUT:-$root/build-gpu/out}}
state="$root/build-gpu/state"           # models, results and logs kept between steps
budget=${BUDGET_S:-560}
start_s=$SECONDS
mkdir -p "$out" "$state/results" "$state/logs"

say() { echo "gpu_session: $*"; }
left() { echo $((budget - (SECONDS - start_s))); }

# --- environment -----------------------------------------------------------------------------

# Makes a path compiled into the executables point at what is here: `link TARGET PATH`.
link() {
    local target=$1 path=$2
    [ "$(readlink -f "$path" 2>/dev/null)" = "$(readlink -f "$target")" ] && return 0
    if [ -e "$path" ] && [ ! -L "$path" ]; then
        say "WARNING: $path exists here and is not $target; tests that use it may fail"
        return 1
    fi
    mkdir -p "$(dirname "$path")" && ln -sfn "$target" "$path"
}

setup() {
    local archive="$root/build-gpu/carry.tar.xz"
    if [ -f "$archive" ] && { [ ! -f "$carry/paths.env" ] || [ "$archive" -nt "$carry/paths.env" ]; }; then
        say "unpacking $archive"
        rm -rf "$carry"
        tar -C "$root/build-gpu" -xJf "$archive" 2>/dev/null ||
            python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$archive" "$root/build-gpu" ||
            { say "cannot unpack $archive"; exit 2; }
        touch "$carry/paths.env"  # unpacked: later commands use the folder as it is
    fi
    if [ ! -f "$carry/paths.env" ]; then
        say "no $carry/paths.env: run scripts/gpu_bundle.sh here and carry build-gpu/carry.tar.xz"
        exit 2
    fi
    # shellcheck disable=SC1091
    . "$carry/paths.env"
    python=${PEERS_PYTHON:-$(command -v python3 || true)}
    export PYTHONUNBUFFERED=1
    link "$root" "$SOURCE_DIR"
    link "$carry/shared-data" "$SHARED_DATA_DIR"
    export HEARSAY_SHARED_DATA_DIR="$carry/shared-data"  # hearsay-cli's defaults (make-test-model --vocab)
    mkdir -p "$BUILD_DIR" 2>/dev/null
    link "$carry/bin" "$BUILD_DIR/bin"
    link "$carry/tests" "$BUILD_DIR/tests"
    export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # cuBLAS/cudart of the toolkit the bundle was built with, from the system or from pip wheels.
    if ldd "$carry/lib/hearsay/libhearsay-cuda.so" | grep -q "not found"; then
        for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
            $(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcublas.so.*' -printf '%h\n' 2>/dev/null | sort -u); do
            [ -d "$dir" ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$dir"
        done
        export LD_LIBRARY_PATH
    fi
    # The peers run in the image's own python, without our libraries (an older libstdc++ among
    # them would break torch).
    peers_python="$state/python-peers"
    printf '#!/bin/sh\nunset LD_LIBRARY_PATH\nexec %s "$@"\n' "${python:-python3}" >"$peers_python"
    chmod +x "$peers_python"
    cli="$carry/bin/hearsay-cli"
}

# --- check -----------------------------------------------------------------------------------

check() {
    {
        echo "== nvidia-smi"; nvidia-smi 2>&1 | head -20
        echo "== bundle"; cat "$carry/paths.env"; du -sh "$carry"
        echo "== libraries not found"; for b in "$carry"/bin/* "$carry"/tests/* "$carry"/lib/hearsay/*; do ldd "$b" | grep "not found" | sed "s|^|$(basename "$b"): |"; done
        echo "== libraries used by hearsay-cli and the CUDA module"; ldd "$cli" "$carry/lib/hearsay/libhearsay-cuda.so" | grep -E "cublas|cudart|stdc|Qt"
        echo "== python"; "$peers_python" -c "import sys, torch, transformers; print(sys.executable, sys.version.split()[0]); print('torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available()); print('transformers', transformers.__version__)" 2>&1
        echo "== compute-sanitizer"; sanitizer_path || echo "not found"
        echo "== nvcc"; command -v nvcc && nvcc --version | tail -2
        echo "== disk"; df -h "$root" | tail -1
        echo "== device query (kernels_tst_device)"; timeout 60 "$carry/tests/kernels_tst_device" 2>&1 | tail -8
        echo "== GPU peaks and floors"; timeout 60 "$cli" bench --floors-only --backend cuda --sizes tiny,base,small,medium,large-v3,large-v3-turbo \
            --json "$out/floors.json" 2>&1
    } 2>&1 | tee "$out/check.txt"
}

# --- tests -----------------------------------------------------------------------------------

sanitizer_path() {
    command -v compute-sanitizer 2>/dev/null && return 0
    for p in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda-*/bin/compute-sanitizer /opt/nvidia/*/compute-sanitizer; do
        [ -x "$p" ] && echo "$p" && return 0
    done
    return 1
}

failures=0
summary="$state/logs/summary.txt"

# Runs one Qt Test executable; kernels suites must not skip. Appends a line to the summary.
run_suite() {
    local exe=$1 must_not_skip=$2 name log rc totals skips
    name=$(basename "$exe")
    log="$state/logs/$name.log"
    local limit; limit=$(left)
    [ "$limit" -gt "${SUITE_S:-240}" ] && limit=${SUITE_S:-240}
    [ -n "${tests_until:-}" ] && [ "$limit" -gt $((tests_until - SECONDS)) ] && limit=$((tests_until - SECONDS))
    if [ "$limit" -lt 20 ]; then
        echo "NOT RUN  $name (out of time)" | tee -a "$summary"; failures=$((failures + 1)); return
    fi
    timeout "$limit" "$exe" >"$log" 2>&1
    rc=$?
    totals=$(grep -E "^Totals:" "$log" | tail -1)
    skips=$(grep -c "^SKIP" "$log")
    if [ $rc -ne 0 ]; then
        echo "FAIL     $name (exit $rc) $totals" | tee -a "$summary"; failures=$((failures + 1))
        grep -E "^(FAIL!|SKIP|QFATAL|QWARN)" "$log" | head -20 | sed 's/^/         /' | tee -a "$summary"
    elif [ "$must_not_skip" = 1 ] && [ "$skips" -gt 0 ]; then
        echo "FAIL     $name skipped $skips test(s) with a GPU present: $totals" | tee -a "$summary"; failures=$((failures + 1))
        grep "^SKIP" "$log" | head -5 | sed 's/^/         /' | tee -a "$summary"
    else
        echo "PASS     $name $totals" | tee -a "$summary"
    fi
}

# compute-sanitizer TOOL over one kernels suite, within the time left.
run_sanitizer() {
    local tool=$1 exe=$2 name log rc limit sanitizer
    name=$(basename "$exe")
    log="$state/logs/$name.$tool.log"
    sanitizer=$(sanitizer_path) || { echo "NOT RUN  $tool $name (compute-sanitizer not found)" | tee -a "$summary"; return; }
    limit=$(left)
    [ "$limit" -gt 240 ] && limit=240
    [ -n "${sanitize_until:-}" ] && [ "$limit" -gt $((sanitize_until - SECONDS)) ] && limit=$((sanitize_until - SECONDS))
    if [ "$limit" -lt 30 ]; then
        echo "NOT RUN  $tool $name (out of time: run 'gpu_session.sh sanitize $tool')" | tee -a "$summary"; return
    fi
    timeout "$limit" "$sanitizer" --tool "$tool" --report-api-errors no --error-exitcode 86 --print-limit 20 "$exe" >"$log" 2>&1
    rc=$?
    if [ $rc -eq 124 ]; then
        echo "TIMEOUT  $tool $name after ${limit}s (no finding before; run alone: 'gpu_session.sh sanitize $tool')" | tee -a "$summary"
    elif grep -q -E "Device not supported|Target application terminated before first instrumented API call" "$log"; then
        echo "NOT RUN  $tool $name: compute-sanitizer cannot instrument this machine: $(grep -m1 -E 'Device not supported|terminated' "$log")" | tee -a "$summary"
    elif [ $rc -ne 0 ]; then
        echo "FAIL     $tool $name (exit $rc): $(grep -m1 -E 'ERROR SUMMARY|Invalid|Race|Barrier' "$log")" | tee -a "$summary"
        failures=$((failures + 1))
    else
        echo "PASS     $tool $name: $(grep -m1 'ERROR SUMMARY' "$log")" | tee -a "$summary"
    fi
}

sanitize_suites() {
    local tools=("$@") tool exe
    [ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck)
    for tool in "${tools[@]}"; do
        for exe in "$carry/tests/kernels_tst_cuda_ops" "$carry/tests/kernels_tst_cuda_attention"; do
            [ -x "$exe" ] && run_sanitizer "$tool" "$exe"
        done
    done
}

finish_tests() {
    tar -czf "$out/test-logs.tar.gz" -C "$state" logs
    cp "$summary" "$out/test-summary.txt"
    say "$failures failure(s); summary in test-summary.txt, logs in test-logs.tar.gz"
    [ $failures -eq 0 ]
}

tests_without_sanitizer() {
    : >"$summary"
    echo "== kernels (none may skip)" | tee -a "$summary"
    for exe in "$carry"/tests/kernels_tst_*; do selected "$exe" && run_suite "$exe" 1; done
    echo "== core" | tee -a "$summary"
    for exe in "$carry"/tests/core_tst_*; do selected "$exe" && run_suite "$exe" 0; done
}

# SUITES, an extended regular expression over the executables' names, picks some (default: all).
selected() { [ -z "${SUITES:-}" ] || basename "$1" | grep -q -E "$SUITES"; }

tests() {
    tests_without_sanitizer
    echo "== compute-sanitizer (at most ${TEST_SANITIZE_S:-180}s here; 'sanitize TOOL' runs one tool alone)" | tee -a "$summary"
    sanitize_until=$((SECONDS + ${TEST_SANITIZE_S:-180}))
    sanitize_suites
    finish_tests
}

sanitize() {
    : >"$summary"
    sanitize_suites "$@"
    finish_tests
}

# --- bench -----------------------------------------------------------------------------------

sizes_known="tiny base small medium large-v3 large-v3-turbo tiny.en base.en small.en medium.en large-v1 large-v2 turbo"

make_models() {
    local size
    for size in "$@"; do
        local dir="$state/models/$size-seed1-f16"
        [ -f "$dir/hf/model.safetensors" ] && { say "$size: model cached"; continue; }
        mkdir -p "$dir"
        timeout "$(left)" "$cli" make-test-model --dims "$size" --seed 1 --format hf --dtype f16 "$dir/hf" || return 1
    done
}

bench() {
    local precision=$1; shift
    [ $# -gt 0 ] || { say "bench needs sizes: $sizes_known"; exit 2; }
    local size status=0 files=0
    for size in "$@"; do
        case " $sizes_known " in *" $size "*) ;; *) say "unknown size '$size' ($sizes_known)"; exit 2 ;; esac
    done
    for size in "$@"; do
        local json="$state/results/bench-$size-$precision${RESULT_SUFFIX:-}.json" limit
        limit=$(left)
        if [ "$limit" -lt 60 ]; then say "$size: not run, out of time (run it in a step of its own)"; status=1; continue; fi
        say "$size ($precision): bench, at most ${limit}s"
        rm -f "$json"
        # shellcheck disable=SC2086
        timeout "$limit" "$cli" bench --backend "${BENCH_BACKEND:-cuda}" --precision "$precision" --sizes "$size" --format hf --dtype f16 \
            --work-dir "$state/models" --audio "$carry/shared-data/speech-30s-a.wav" --lengths "${LENGTHS:-20,128,224}" \
            --peers --peers-list "${PEERS:-transformers-static}" --python "$peers_python" --json "$json" ${BENCH_ARGS:-} \
            2>&1 | tee -a "$state/logs/bench.log" | tee -a "$out/bench.log"
        if [ -f "$json" ]; then
            [ $files -lt 4 ] && cp "$json" "$out/" && files=$((files + 1))
        else
            say "$size: no report (failed or out of time)"; status=1
        fi
    done
    render
    return $status
}

render() {
    local reports=("$state"/results/*.json)
    [ -e "${reports[0]}" ] || { say "no results yet"; return 1; }
    "${python:-python3}" "$root/scripts/bench/render_results.py" "${reports[@]}" >"$out/tables.md" 2>"$out/render-errors.txt" \
        && rm -f "$out/render-errors.txt"
    tar -czf "$out/results.tar.gz" -C "$state" results
    say "tables.md from ${#reports[@]} report(s); all reports in results.tar.gz"
}

# --- real weights ----------------------------------------------------------------------------

# CUDA against CPU tokens on the real tiny.en (the bundle's ggml q4_0 copy: the same weights on
# both backends, small enough to travel) over jfk.wav and a 60 s clip (two windows, the second
# prompted with the first's text), then compute-sanitizer memcheck over one greedy transcription.
real() {
    local model="$carry/models/tiny.en-q4_0.bin" data="$carry/shared-data" limit
    [ -f "$model" ] || { say "no real model in the bundle (scripts/gpu_bundle.sh adds it where scripts/fetch_real_models.sh ran)"; return 1; }
    local long="$state/speech-60s.wav"
    [ -f "$long" ] || "$peers_python" - "$data/speech-30s-a.wav" "$data/speech-30s-b.wav" "$long" <<'PY'
import sys, wave
with wave.open(sys.argv[3], "wb") as out:
    for i, name in enumerate(sys.argv[1:3]):
        with wave.open(name) as clip:
            if i == 0:
                out.setparams(clip.getparams())
            out.writeframes(clip.readframes(clip.getnframes()))
PY
    limit=$(left); [ "$limit" -gt "${REAL_S:-150}" ] && limit=${REAL_S:-150}
    say "real weights: CUDA against CPU tokens, at most ${limit}s"
    LD_LIBRARY_PATH="$LD_LIBRARY_PATH" timeout "$limit" python3 "$root/scripts/gpu/compare_backends.py" --cli "$cli" \
        --model "$model" --out "$out/real-tokens.md" --timeout 60 "$data/jfk.wav" "$long" 2>&1 | tee "$state/logs/real-tokens.log"
    local sanitizer; sanitizer=$(sanitizer_path) || { say "compute-sanitizer not found"; return 0; }
    limit=$(left); [ "$limit" -gt "${MEMCHECK_S:-90}" ] && limit=${MEMCHECK_S:-90}
    say "memcheck over one greedy transcription of jfk.wav, at most ${limit}s"
    timeout "$limit" "$sanitizer" --tool memcheck --error-exitcode 86 --print-limit 20 "$cli" transcribe --model "$model" \
        --backend cuda --beam-size 1 --quiet "$data/jfk.wav" >"$state/logs/memcheck-transcribe.log" 2>&1
    say "memcheck exit $? ($(grep -m1 'ERROR SUMMARY' "$state/logs/memcheck-transcribe.log"))"
    tail -5 "$state/logs/memcheck-transcribe.log"
}

# --- kernel times ----------------------------------------------------------------------------

# Where a decode step's time goes on the GPU: Nsight Compute times every kernel of one greedy
# transcription (tiny.en, jfk.wav; the clocks left alone; step graphs on, whose nodes it times one
# by one), and kernel_times.py sums them per decode step and per kernel. Set against the bench's
# ms/token, the sum says how much of a step is kernels and how much launches and host work.
profile() {
    local model="$carry/models/tiny.en-q4_0.bin" data="$carry/shared-data" ncu limit
    [ -f "$model" ] || { say "no real model in the bundle"; return 1; }
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    [ -n "$ncu" ] || { say "ncu not found"; return 1; }
    limit=$(left); [ "$limit" -gt "${PROFILE_S:-60}" ] && limit=${PROFILE_S:-60}
    say "profile: ncu over one greedy transcription of jfk.wav, at most ${limit}s"
    timeout "$limit" "$ncu" --clock-control none --metrics gpu__time_duration.sum --launch-count "${PROFILE_LAUNCHES:-1500}" \
        --csv "$cli" transcribe --model "$model" --backend cuda --beam-size 1 --quiet "$data/jfk.wav" \
        >"$state/logs/ncu-transcribe.csv" 2>"$state/logs/ncu-transcribe.err"
    say "ncu exit $?"
    python3 "$root/scripts/gpu/kernel_times.py" --step-marker embedKernel "$state/logs/ncu-transcribe.csv" \
        >"$out/kernel-times.md" 2>&1
    head -3 "$out/kernel-times.md"
}

# Everything in one step within BUDGET_S: check, the tests, the real weights, the bench of SIZE...,
# each step capped, the results packed into gpu-results.tar.gz in the results folder with the
# summaries beside it (a handful of files to read first).
all() {
    local final=$out
    out="$state/out"; rm -rf "$out"; mkdir -p "$out"
    check
    tests_until=$((SECONDS + ${TESTS_S:-200})) SUITE_S=${SUITE_S:-90} tests_without_sanitizer
    tests_until=
    real
    [ $# -gt 0 ] && bench fp16 "$@"
    sanitize_until=$((SECONDS + $(left) - 10)) sanitize_suites memcheck
    finish_tests
    tar -czf "$final/gpu-results.tar.gz" -C "$state" out logs results
    for f in check.txt test-summary.txt real-tokens.md tables.md bench.log; do [ -f "$out/$f" ] && cp "$out/$f" "$final/"; done
    say "done in $((SECONDS - start_s))s"
}

# --- main ------------------------------------------------------------------------------------

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
    check|test|sanitize|bench|bench-fp32|bench-baseline|models|render|real|profile|all) setup ;;
    *) sed -n '2,27p' "$0"; exit 2 ;;
esac
case "$command" in
    check) check ;;
    test) tests ;;
    sanitize) sanitize "$@" ;;
    bench) bench fp16 "$@" ;;
    bench-fp32) bench fp32 "$@" ;;
    bench-baseline) HEARSAY_CUDA_DISABLE=small-linear,tensor-attention,split-attention,lt-bias,half-kv RESULT_SUFFIX=-baseline \
                        bench fp16 "$@" ;;
    models) make_models "$@" ;;
    render) render ;;
    real) real ;;
    profile) profile ;;
    all) all "$@" ;;
esac
