// Typing or pasting committed text, and the paste chord per target (see insertion_method.h).
#include "core/typing/insertion_method.h"

#include "core/typing/wayland_typer.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <cctype>

namespace hearsay {
namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

// WM_CLASS names of terminal emulators; any name containing "terminal" counts too
// (gnome-terminal, xfce4-terminal, mate-terminal, lxterminal, qterminal, io.elementary.terminal).
constexpr std::string_view kTerminals[] = {
    "xterm", "uxterm", "urxvt", "rxvt", "st", "st-256color", "konsole", "kitty", "alacritty", "foot", "footclient",
    "terminator", "tilix", "org.wezfurlong.wezterm", "wezterm", "sakura", "terminology", "guake", "yakuake", "tilda",
    "kgx", "org.gnome.console", "org.gnome.ptyxis", "com.mitchellh.ghostty", "ghostty", "cool-retro-term", "contour",
    "eterm", "aterm", "mlterm", "lxterm", "roxterm", "hyper", "tabby", "com.raggesilver.blackbox", "blackbox"};

// Terminals whose default bindings paste only PRIMARY (Shift+Insert): Ctrl+Shift+V is ^V there,
// the tty's literal-next character.
constexpr std::string_view kPrimaryPasters[] = {"xterm", "uxterm", "lxterm", "urxvt", "rxvt", "aterm", "eterm"};

bool nameIn(const FocusedWindow& window, const std::string_view* begin, const std::string_view* end) {
    const std::string instance = lower(window.instance), cls = lower(window.windowClass);
    return std::any_of(begin, end, [&](std::string_view name) { return instance == name || cls == name; });
}

} // namespace

size_t pasteFromCodePoints(const TextTyper& typer) {
    return isWaylandTyper(typer) ? kPasteFromCodePointsWtype : kPasteFromCodePoints;
}

PasteReason pasteReason(InsertionMode mode, std::string_view utf8, std::optional<uint32_t> missing, size_t pasteFrom) {
    if (mode == InsertionMode::Type) return PasteReason::Typed;
    if (mode == InsertionMode::Paste) return PasteReason::Chosen;
    if (missing) return PasteReason::MissingCharacter;
    size_t bad = 0;
    const auto points = codePointsOf(utf8, &bad);
    if (points && points->size() >= pasteFrom) return PasteReason::Long;
    return PasteReason::Typed;
}

bool isTerminal(const FocusedWindow& window) {
    if (nameIn(window, std::begin(kTerminals), std::end(kTerminals))) return true;
    return lower(window.instance).find("terminal") != std::string::npos ||
           lower(window.windowClass).find("terminal") != std::string::npos;
}

PasteChord pasteChordFor(const FocusedWindow& window) {
    if (nameIn(window, std::begin(kPrimaryPasters), std::end(kPrimaryPasters)))
        return {{"Shift_L", "Insert"}, true, "Shift+Insert"};
    if (isTerminal(window)) return {{"Control_L", "Shift_L", "v"}, false, "Ctrl+Shift+V"};
    return {{"Control_L", "v"}, false, "Ctrl+V"};
}

std::optional<InsertionMode> insertionModeFromName(std::string_view name) {
    if (name == "automatic") return InsertionMode::Automatic;
    if (name == "type") return InsertionMode::Type;
    if (name == "paste") return InsertionMode::Paste;
    return std::nullopt;
}

std::string insertionModeName(InsertionMode mode) {
    switch (mode) {
    case InsertionMode::Type: return "type";
    case InsertionMode::Paste: return "paste";
    case InsertionMode::Automatic: break;
    }
    return "automatic";
}

} // namespace hearsay
