#!/usr/bin/env bash
# Installs the build into a staging directory (DESTDIR, prefix /usr) as a package would, then
# checks it as a user's machine would see it: the expected files, the desktop entry and the
# AppStream metainfo through their validators, the man pages rendered without a warning, and the
# installed programs run from the staging directory, away from the source and build trees:
# --version, a transcription of jfk.wav (with the real tiny.en when scripts/fetch_real_models.sh
# has fetched it, else a random model), and the GUI's screenshot.
#   bash tests/install/check_install.sh BUILD_DIR SHARED_DATA_DIR
set -euo pipefail
build=$1
data=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
fail() { echo "check_install: FAIL: $*" >&2; exit 1; }

DESTDIR="$stage" cmake --install "$build" --prefix /usr >"$stage.log" 2>&1 || { cat "$stage.log"; fail "cmake --install"; }
rm -f "$stage.log"
root="$stage/usr"
id=io.github.hearsay.Hearsay
expected=(
    bin/hearsay bin/hearsay-cli bin/hearsay-decode
    share/applications/$id.desktop share/metainfo/$id.metainfo.xml
    share/icons/hicolor/scalable/apps/hearsay.svg share/icons/hicolor/48x48/apps/hearsay.png
    share/icons/hicolor/256x256/apps/hearsay.png
    share/man/man1/hearsay.1 share/man/man1/hearsay-cli.1
    share/bash-completion/completions/hearsay share/bash-completion/completions/hearsay-cli
    share/zsh/vendor-completions/_hearsay
    share/hearsay/scripts/bench/peers.py share/doc/hearsay/LICENSE
)
if [ -e "$build/lib/hearsay/libhearsay-cuda.so" ]; then expected+=(lib/hearsay/libhearsay-cuda.so); fi
for f in "${expected[@]}"; do [ -e "$root/$f" ] || fail "not installed: $f"; done
echo "check_install: ${#expected[@]} expected files installed ($(find "$root" -type f | wc -l) files in all)"
# Nothing from the build or source tree in the installed text files.
if grep -rl -e "$(cd "$build" && pwd)" -e "$(cd "$(dirname "$0")/../.." && pwd)" "$root/share" >/dev/null; then
    fail "a build or source path in $(grep -rl -e "$(cd "$build" && pwd)" "$root/share" | head -1)"
fi

desktop-file-validate "$root/share/applications/$id.desktop" || fail "desktop-file-validate"
appstreamcli validate --no-net --explain "$root/share/metainfo/$id.metainfo.xml" || fail "appstreamcli validate"
for page in hearsay hearsay-cli; do
    warnings=$(MANWIDTH=100 man --warnings -l "$root/share/man/man1/$page.1" 2>&1 >/dev/null | grep -v XDG_RUNTIME_DIR || true)
    [ -z "$warnings" ] || fail "man $page: $warnings"
    MANWIDTH=100 man -l "$root/share/man/man1/$page.1" 2>/dev/null | grep -q "^NAME" || fail "man $page renders no NAME"
done
bash -n "$root/share/bash-completion/completions/hearsay" && bash -n "$root/share/bash-completion/completions/hearsay-cli" ||
    fail "bash completion"
if command -v zsh >/dev/null; then zsh -n "$root/share/zsh/vendor-completions/_hearsay" || fail "zsh completion"; fi
echo "check_install: desktop entry, metainfo, man pages and completions valid"

# The installed programs, from a directory outside both trees.
work="$stage/work"
mkdir -p "$work" && cd "$work"
export QT_QPA_PLATFORM=offscreen XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
unset HEARSAY_DECODER
version=$("$root/bin/hearsay-cli" --version)
[[ $version =~ ^hearsay-cli\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ .+\)$ ]] || fail "hearsay-cli --version: $version"
"$root/bin/hearsay" --version | grep -q "^Hearsay [0-9]" || fail "hearsay --version"
echo "check_install: $version"
cp "$data/jfk.wav" "$work/"
models=${HEARSAY_TEST_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/hearsay/test-models}
model="$models/tiny.en"
if [ ! -f "$model/.stamp" ]; then
    model="$work/model.bin"
    "$root/bin/hearsay-cli" make-test-model --dims 64x2x2 --seed 1 --format ggml --vocab "$data/ggml-vocab-tiny.bin" "$model" >/dev/null
fi
transcribe() { "$root/bin/hearsay-cli" transcribe --model "$model" --language en --quiet jfk.wav 2>"$work/err.txt"; }
text=$(transcribe) || fail "the installed hearsay-cli could not transcribe jfk.wav: $(cat "$work/err.txt")"
# The audio went through the installed decoder helper (a missing one is named in a warning, and
# the file decoded in the program itself).
! grep -q "no hearsay-decode found" "$work/err.txt" || fail "the installed hearsay-decode was not found"
if [ "$model" = "$models/tiny.en" ]; then
    grep -qi "ask not what your country can do for you" <<<"$text" || fail "transcript of jfk.wav: $text"
    echo "check_install: the installed hearsay-cli transcribed jfk.wav with tiny.en: $(tr '\n' ' ' <<<"$text")"
else
    echo "check_install: the installed hearsay-cli transcribed jfk.wav (a random model: no real tiny.en here)"
fi
mv "$root/bin/hearsay-decode" "$stage/hearsay-decode.away"
transcribe >/dev/null || fail "no transcript without the decoder helper: $(cat "$work/err.txt")"
grep -q "no hearsay-decode found" "$work/err.txt" || fail "a decoder helper from outside the installation was used"
mv "$stage/hearsay-decode.away" "$root/bin/hearsay-decode"
# The CUDA backend is optional: no installed program links the CUDA runtime or cuBLAS; its module
# (when this build has CUDA) is found beside them, and where it cannot be loaded the CUDA backend
# is refused with the reason while the CPU backend works.
for program in hearsay hearsay-cli hearsay-decode; do
    ! ldd "$root/bin/$program" | grep -Eq "libcudart|libcublas" || fail "$program links a CUDA library"
done
cuda() { "$root/bin/hearsay-cli" transcribe --model "$model" --language en --quiet --backend cuda jfk.wav 2>&1 >/dev/null; }
if [ -e "$root/lib/hearsay/libhearsay-cuda.so" ]; then
    said=$(cuda) && echo "check_install: the CUDA backend transcribed jfk.wav" ||
        { ! grep -q "module" <<<"$said" || fail "the installed CUDA module was not loaded: $said"
          echo "check_install: the installed CUDA module loaded; here: $(tail -1 <<<"$said")"; }
    # A module whose CUDA libraries are missing: a stand-in that needs a library no machine has.
    echo 'int hearsay_cuda_stand_in(void) { return 0; }' >"$work/absent.c"
    cc -shared -fPIC -Wl,-soname,libcudart.so.999 -o "$work/libcudart.so.999" "$work/absent.c"
    cc -shared -fPIC -o "$work/stand-in.so" "$work/absent.c" -L"$work" -Wl,--no-as-needed -l:libcudart.so.999
    rm "$work/libcudart.so.999"
    said=$(HEARSAY_CUDA_MODULE="$work/stand-in.so" cuda) && fail "a CUDA module without its libraries was used"
    grep -q "CUDA runtime and cuBLAS libraries it needs are missing" <<<"$said" || fail "no clear message: $said"
    HEARSAY_CUDA_MODULE="$work/stand-in.so" "$root/bin/hearsay-cli" transcribe --model "$model" --language en \
        --quiet --backend auto jfk.wav >/dev/null 2>&1 || fail "--backend auto did not fall back to the CPU"
    echo "check_install: without its CUDA libraries: $(tail -1 <<<"$said")"
fi
"$root/bin/hearsay" --settings "$work/settings.ini" --screenshot "$work/window.png" >/dev/null 2>&1 || fail "hearsay --screenshot"
[ -s "$work/window.png" ] || fail "hearsay --screenshot wrote no PNG"
echo "check_install: the installed hearsay started and saved a screenshot"
