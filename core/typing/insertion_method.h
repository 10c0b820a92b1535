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

// From this many characters on, Automatic pastes. Measured under Xvfb (ui.paste_x11 with
// HEARSAY_MEASURE_PASTE=1; README, "Dictate into other applications"): typing is as fast or
// faster up to about 50 characters, pasting is faster from about 100 on in a Qt editor, xterm
// and st, and typing grows with the length (about 0.4 ms a character in a Qt editor at 2,000).
inline constexpr size_t kPasteFromCodePoints = 100;

// Why a text is pasted rather than typed; Typed when it is not.
enum class PasteReason { Typed, Chosen, MissingCharacter, Long };

// `missing`: the first character the layout lacks (TextTyper::missingCharacter).
PasteReason pasteReason(InsertionMode mode, std::string_view utf8, std::optional<uint32_t> missing);

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
