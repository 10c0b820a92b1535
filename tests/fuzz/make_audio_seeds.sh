#!/usr/bin/env bash
# Writes seeds of every container Hearsay opens (WAV, FLAC, OGG Vorbis, Opus, MP3, M4A/AAC, WebM)
# into tests/fuzz/corpus/fuzz_audio_file/, made by the FFmpeg command-line tool (Debian's ffmpeg
# package): a quarter second of a 440 Hz tone, mono and stereo, a few kilobytes each, so that the
# fuzzer starts inside each demuxer and decoder. The seeds are committed; CI does not run this.
#   bash tests/fuzz/make_audio_seeds.sh
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)/corpus/fuzz_audio_file
mkdir -p "$out"
command -v ffmpeg >/dev/null || { echo "make_audio_seeds.sh: needs ffmpeg (apt-get install ffmpeg)" >&2; exit 1; }
make() {  # make NAME CHANNELS RATE ENCODER-OPTIONS...
    local name=$1 channels=$2 rate=$3
    shift 3
    ffmpeg -v error -y -f lavfi -i "sine=frequency=440:sample_rate=$rate:duration=0.25" \
        -ac "$channels" -map_metadata -1 -fflags +bitexact -flags:a +bitexact "$@" "$out/$name"
}
make ffmpeg_s16_stereo.wav 2 16000 -c:a pcm_s16le
make ffmpeg_f32_mono.wav 1 8000 -c:a pcm_f32le
make ffmpeg_mono.flac 1 16000 -c:a flac
make ffmpeg_stereo.ogg 2 22050 -c:a libvorbis -q:a 0
make ffmpeg_mono.opus 1 48000 -c:a libopus -b:a 16k
make ffmpeg_mono.mp3 1 16000 -c:a libmp3lame -b:a 32k
make ffmpeg_stereo.m4a 2 22050 -c:a aac -b:a 32k
make ffmpeg_mono.webm 1 48000 -c:a libopus -b:a 16k
ls -l "$out"
