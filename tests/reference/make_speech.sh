#!/usr/bin/env bash
# Renders the synthetic speech of tests/data/real/speech.tsv: one 16 kHz mono 16-bit WAV per line,
# OUTDIR/<id>.wav, with espeak-ng (-s 160) and sox (no dither, so the bytes are reproducible). The
# golden-file generator (gen_real_golden.py) and the C++ `real` tests both call it; the goldens
# record each file's checksum, so a different espeak-ng or sox is reported, not silently compared.
# Idempotent: existing files are kept.
set -euo pipefail
out=${1:?usage: make_speech.sh OUTDIR}
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
for tool in espeak-ng sox; do
    command -v "$tool" >/dev/null || { echo "make_speech.sh: $tool is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
done
while IFS=$'\t' read -r id voice text; do
    case $id in ''|'#'*) continue ;; esac
    [ -s "$out/$id.wav" ] && continue
    tmp="$out/.$id.$$"
    espeak-ng -v "$voice" -s 160 -w "$tmp.22k.wav" "$text"
    sox -D "$tmp.22k.wav" -r 16000 -c 1 -b 16 "$tmp.wav"
    mv "$tmp.wav" "$out/$id.wav"
    rm -f "$tmp.22k.wav"
done < "$here/tests/data/real/speech.tsv"
