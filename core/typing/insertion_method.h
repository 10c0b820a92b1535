// How committed text goes into another application: typed key by key, or put on the clipboard
// and pasted with one chord. Pasting is for text a keyboard layout cannot type (Qt and GTK
// programs ignore the spare keys the typer maps for such characters) and for long text, which
// one chord delivers faster than a key per character (README: the measurement behind
// kPasteFromCodePoints). Terminals paste with Ctrl+Shift+V (Ctrl+V is a control character to
// the program inside); xterm and urxvt paste only the PRIMARY selection, with Shift+Insert.
#pragma once

#include "core/typing/text_typer.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

enum class InsertionMode { Automatic, Type, Paste };

// From this many characters on, Automatic pastes (scripts/bench/typing_latency.sh; README, "Dictate
// into other applications"). X11 (XTest) under Xvfb: typing is as fast or faster up to about 50
// characters, pasting is faster from about 100 on in a Qt editor, xterm and st. wtype under a
// headless sway: typing costs about 75 ms plus 5 ms a character in a Qt editor (and holds the
// window's thread that long), a paste about 95 ms whatever the length, but the paste holds the
// user's clipboard for a second and the pieces after it wait for that: so short pieces are typed,
// and from 40 characters (typing past a quarter second) pasted.
inline constexpr size_t kPasteFromCodePoints = 100;
inline constexpr size_t kPasteFromCodePointsWtype = 40;

// The length from which Automatic pastes for `typer`.
size_t pasteFromCodePoints(const TextTyper& typer);

// Why a text is pasted rather than typed; Typed when it is not.
enum class PasteReason { Typed, Chosen, MissingCharacter, Long };

// `missing`: the first character the layout lacks (TextTyper::missingCharacter); `pasteFrom`:
// pasteFromCodePoints() of the typer.
PasteReason pasteReason(InsertionMode mode, std::string_view utf8, std::optional<uint32_t> missing,
                        size_t pasteFrom = kPasteFromCodePoints);

struct PasteChord {
    std::vector<std::string> keysyms;  // for TextTyper::pressChord
    bool primarySelection = false;     // the target pastes PRIMARY (the selection), not CLIPBOARD
    std::string name;                  // "Ctrl+V", for messages
};

// A terminal emulator, by its WM_CLASS instance or class name (case ignored).
bool isTerminal(const FocusedWindow& window);
PasteChord pasteChordFor(const FocusedWindow& window);

// "automatic", "type", "paste" (the settings' words); nullopt for another word.
std::optional<InsertionMode> insertionModeFromName(std::string_view name);
std::string insertionModeName(InsertionMode mode);

} // namespace hearsay
