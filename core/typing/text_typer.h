// Typing text into the focused window of another application, as if the user typed it: the way
// dictated (committed) text reaches an editor, a chat box or a terminal. One implementation per
// display system; openTextTyper() picks the one the session runs (X11; on Wayland wtype or the
// desktop portal).
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

// The top-level window that has the keyboard focus and its class (X11's WM_CLASS: instance and
// class names, "xterm" / "XTerm"); id 0 and empty names when none is known.
struct FocusedWindow {
    uint64_t id = 0;
    std::string instance;
    std::string windowClass;
};

class TextTyper {
public:
    virtual ~TextTyper() = default;
    // Types `utf8` into the window that has the keyboard focus now; "\n" is Return, "\t" Tab.
    // Every character goes, or the error names the first that could not (nothing after it is
    // typed, so the target never holds a part out of order).
    virtual Result<void> type(std::string_view utf8) = 0;
    // The first character of `utf8` that the current layout has no key for (typing it needs a
    // spare key, which programs with an XKB keymap of their own do not follow), or none.
    // Not UTF-8 or a character without a key symbol counts as missing too.
    virtual std::optional<uint32_t> missingCharacter(std::string_view utf8) = 0;
    // Presses the keys named by their key symbols ("Control_L", "Shift_L", "v") in order and
    // releases them in reverse: a shortcut such as a paste chord. Modifiers the user still holds
    // are released first. An error names a symbol no key carries.
    virtual Result<void> pressChord(const std::vector<std::string>& keysyms) = 0;
    virtual FocusedWindow focusedWindow() = 0;
    // "X11 (XTest) on :1, layout group 1": what types, for messages and the settings.
    virtual std::string describe() const = 0;
};

// The typer of this desktop session: X11 through XTest when $WAYLAND_DISPLAY is not set
// (x11_typer.h); on Wayland the RemoteDesktop portal on GNOME and KDE ($XDG_CURRENT_DESKTOP;
// portal_typer.h), wtype elsewhere (wayland_typer.h), and the portal where wtype finds no virtual
// keyboard. $HEARSAY_TYPER (x11, wayland or portal) chooses instead. An error says why there is none.
Result<std::unique_ptr<TextTyper>> openTextTyper();
// Whether openTextTyper() opens the RemoteDesktop portal first (HEARSAY_TYPER=portal, or GNOME or
// KDE on Wayland): its Start waits for the user's answer to the desktop's question, up to
// kPortalStartTimeoutMs, so a program with a window opens it off its event loop's thread.
bool textTyperAsksTheUser();

} // namespace hearsay
