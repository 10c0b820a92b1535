#!/usr/bin/env bash
# Checks the Debian package that scripts/package.sh built: its control fields (dependencies
# computed, no CUDA library among them), and the files it holds under /usr. With --install (root,
# a machine that may change: not run by the test suite) it also installs it with apt-get, runs the
# installed programs from PATH outside the source tree (--version, a transcription of jfk.wav with
# the real tiny.en, the GUI's screenshot under the offscreen platform) and removes it again,
# checking that nothing of it is left.
#   bash tests/install/check_package.sh DEB [--install SHARED_DATA_DIR]
#   bash tests/install/check_package.sh --cpack BUILD_DIR    (builds the package from a build
#                                      directory into BUILD_DIR/test-package first: the test suite)
set -euo pipefail
if [ "$1" = --cpack ]; then
    build=$(cd "$2" && pwd)
    rm -rf "$build/test-package" && mkdir -p "$build/test-package"
    (cd "$build" && cpack -G DEB -B "$build/test-package" >"$build/test-package/cpack.log" 2>&1) ||
        { cat "$build/test-package/cpack.log"; echo "check_package: FAIL: cpack" >&2; exit 1; }
    set -- "$(ls "$build"/test-package/hearsay_*.deb)"
fi
deb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fail() { echo "check_package: FAIL: $*" >&2; exit 1; }
[ -f "$deb" ] || fail "no package $1 (bash scripts/package.sh)"

[ "$(dpkg-deb --field "$deb" Package)" = hearsay ] || fail "package name"
depends=$(dpkg-deb --field "$deb" Depends)
for needed in libc6 libqt6widgets6 libqt6svg6 qt6-qpa-plugins libportaudio2 libsamplerate0 libopenblas; do
    grep -q "$needed" <<<"$depends" || fail "Depends lacks $needed: $depends"
done
! grep -Eiq "cuda|cublas" <<<"$depends" || fail "a CUDA library is a hard dependency: $depends"
listing=$(dpkg-deb --contents "$deb" | awk '{print $6}')
id=io.github.hearsay.Hearsay
for f in usr/bin/hearsay usr/bin/hearsay-cli usr/bin/hearsay-decode \
         usr/share/applications/$id.desktop usr/share/metainfo/$id.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/hearsay.svg usr/share/icons/hicolor/128x128/apps/hearsay.png \
         usr/share/man/man1/hearsay.1 usr/share/man/man1/hearsay-cli.1 \
         usr/share/bash-completion/completions/hearsay-cli usr/share/doc/hearsay/LICENSE; do
    grep -Eq "^\./$f(\.gz)?$" <<<"$listing" || fail "not in the package: $f"
done
! grep -Eq "^\./usr/(include|local)/|\.a$" <<<"$listing" || fail "build-only files in the package"
echo "check_package: $(basename "$deb"): $(grep -c . <<<"$listing") entries; Depends: $depends"

[ "${2:-}" = --install ] || exit 0
data=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install"; }
cd "$work"
[ "$(command -v hearsay-cli)" = /usr/bin/hearsay-cli ] || fail "hearsay-cli is not on PATH"
hearsay-cli --version
cp "$data/jfk.wav" .
models=${HEARSAY_TEST_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/hearsay/test-models}
text=$(hearsay-cli transcribe --model "$models/tiny.en" --quiet jfk.wav) || fail "transcribe"
grep -qi "ask not what your country can do for you" <<<"$text" || fail "transcript: $text"
echo "check_package: installed hearsay-cli: $(tr '\n' ' ' <<<"$text")"
QT_QPA_PLATFORM=offscreen XDG_STATE_HOME="$work/state" hearsay --settings "$work/s.ini" --screenshot "$work/w.png" >/dev/null 2>&1 ||
    fail "hearsay --screenshot"
[ -s "$work/w.png" ] || fail "no screenshot"
echo "check_package: installed hearsay started and saved a screenshot ($(stat -c %s "$work/w.png") bytes)"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q hearsay >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get remove"; }
left=$(dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ {print substr($6, 2)}' | while read -r f; do [ -e "$f" ] && echo "$f"; done || true)
[ -z "$left" ] || fail "left after removal: $left"
hash -r
! command -v hearsay-cli >/dev/null || fail "hearsay-cli still on PATH"
echo "check_package: removed; no file of the package left"
