#!/usr/bin/env bash
# Installs everything Hearsay needs to build, run and test, from Debian packages.
# Idempotent: running it again installs nothing new. Pass --reference to also create
# the Python virtual environment used by the golden-file generator (tests/reference,
# see tests/reference/README.md).
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config git clang libclang-rt-14-dev lld
    qt6-base-dev qt6-tools-dev qt6-tools-dev-tools libgl-dev libqt6svg6 fonts-dejavu-core
    portaudio19-dev libasound2-dev libsamplerate0-dev libsndfile1-dev libkissfft-dev libopenblas-dev zlib1g-dev nlohmann-json3-dev libcli11-dev
    libcurl4-openssl-dev libssl-dev openssl
    libavformat-dev libavcodec-dev libavutil-dev libswresample-dev
    xvfb xauth x11-apps pulseaudio pulseaudio-utils libasound2-plugins espeak-ng sox
    python3 python3-venv curl ca-certificates procps
    desktop-file-utils appstream man-db groff-base librsvg2-bin dpkg-dev file dbus-daemon
    libx11-dev libxtst-dev libxkbcommon-dev xterm x11-xkb-utils stterm xclip
    sway wtype wl-clipboard qt6-wayland libsystemd-dev xdg-desktop-portal
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    "${sudo_cmd[@]}" apt-get update -q
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
    echo "setup: all Debian packages present"
fi

if [ "${1:-}" = "--reference" ]; then
    here=$(cd "$(dirname "$0")/.." && pwd)
    venv="$here/.venv-reference"
    if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
    "$venv/bin/pip" install -q -r "$here/tests/reference/requirements.txt"
    echo "setup: reference environment ready in $venv"
    echo "setup: regenerate the golden files with: .venv-reference/bin/python tests/reference/generate_golden.py"
fi
