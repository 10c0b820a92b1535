#!/usr/bin/env bash
# What decoding audio files in the helper process (hearsay-decode) costs against decoding in
# process: a 3-hour file made here with sox (speech-30s-a.wav 360 times, 16 kHz mono, as FLAC and
# as Ogg Vorbis), decoded both ways by
# `hearsay-cli audio decode [--in-process]` (time, peak RSS of the CLI and of the helper), set
# against the time tiny.en takes to transcribe the same 3 hours (its real-time factor measured
# on a 30 s clip in the same run). Not a test: one run takes several minutes.
#
# Usage: scripts/bench/decode_overhead.sh [BUILD_DIR] [TINY_EN_MODEL_DIR]
#   RUNS=N    decodes per way and file, alternating (default 2); FORMATS="flac ogg" (default)
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}
model=${2:-${HEARSAY_TINY_EN:-$HOME/.cache/hearsay/test-models/tiny.en}}
runs=${RUNS:-2}
formats=${FORMATS:-flac ogg}
cli=$build/bin/hearsay-cli
data=$here/../shared/data
clip=$data/speech-30s-a.wav
hours_seconds=10800

[ -x "$cli" ] || { echo "no $cli: build first" >&2; exit 1; }
[ -x "$build/bin/hearsay-decode" ] || { echo "no hearsay-decode beside $cli: build first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "CPU:$(lscpu | grep 'Model name' | cut -d: -f2 | sed 's/  */ /g'), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"

# The transcription this overhead is set against: tiny.en, default options, on a 30 s clip.
rtf=$("$cli" transcribe --model "$model" --language en --output-format txt "$clip" 2>&1 >/dev/null |
      sed -n 's/.*(RTF \([0-9.]*\)).*/\1/p' | tail -1)
[ -n "$rtf" ] || { echo "could not measure tiny.en's real-time factor" >&2; exit 1; }
echo "tiny.en on $(basename "$clip"): RTF $rtf, so 3 h of audio takes $(awk -v r="$rtf" -v s=$hours_seconds 'BEGIN { printf "%.0f", r * s }') s to transcribe"

for format in $formats; do
    file=$work/3h.$format
    case $format in
        flac) sox "$clip" -r 16000 -c 1 "$file" repeat 359 ;;
        ogg) sox "$clip" -r 16000 -c 1 -C 3 "$file" repeat 359 ;;
        *) echo "unknown format $format" >&2; exit 2 ;;
    esac
    echo
    echo "$format: $(du -m "$file" | cut -f1) MB, $(soxi -D "$file") s, $(soxi -r "$file") Hz, $(soxi -c "$file") channels"
    for i in $(seq "$runs"); do
        for way in in-process helper; do
            flag=""; [ "$way" = in-process ] && flag=--in-process
            line=$("$cli" audio decode "$file" $flag | grep '^decoded in')
            seconds=$(sed -n 's/^decoded in \([0-9.]*\) s.*/\1/p' <<<"$line")
            rss=$(sed -n 's/.*peak RSS \([0-9.]*\) MiB.*/\1/p' <<<"$line")
            helper=$(sed -n 's/.*helper \([0-9.]*\) MiB.*/\1/p' <<<"$line")
            printf '  %-10s run %d: %8.2f s, peak RSS %6.1f MiB%s\n' "$way" "$i" "$seconds" "$rss" \
                "${helper:+, helper $helper MiB}"
            echo "$format $way $seconds" >>"$work/times"
        done
    done
    awk -v f="$format" -v r="$rtf" -v s=$hours_seconds '
        $1 == f && $2 == "in-process" { a += $3; n++ }
        $1 == f && $2 == "helper" { b += $3; m++ }
        END {
            a /= n; b /= m; t = r * s
            printf "  mean: in process %.2f s, helper %.2f s: %+.2f s (%+.1f%% of decoding), %.3f%% of the %.0f s transcription\n",
                   a, b, b - a, 100 * (b - a) / a, 100 * (b - a) / t, t
        }' "$work/times"
done
