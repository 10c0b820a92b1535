// Typing on Wayland compositors that offer the virtual-keyboard protocol (wlroots: sway,
// Hyprland, river, labwc, Wayfire) through wtype (Debian package wtype), run as a child process.
// wtype uploads a keymap of its own made of the text's characters, so any character can be typed
// whatever the user's layout. GNOME and KDE do not offer the protocol (the RemoteDesktop portal
// types there: portal_typer.h); the open fails there with wtype's own words.
#pragma once

#include "core/typing/text_typer.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

// The wtype typer for $WAYLAND_DISPLAY; an error when wtype is missing or the compositor refuses
// (probed with an empty text, which types nothing).
Result<std::unique_ptr<TextTyper>> openWaylandTyper();

// Whether `typer` is the wtype typer (the clipboard path of wayland_paste.h goes with it).
bool isWaylandTyper(const TextTyper& typer);

// wtype's arguments (without the program) for `utf8`: "\n" as -k Return, "\t" as -k Tab, a piece
// that starts with '-' with its leading dashes as -k minus (wtype would read it as an option).
// An error for text that is not UTF-8 or holds another control character.
Result<std::vector<std::string>> wtypeTextArguments(std::string_view utf8);

// wtype's arguments for a chord of key symbols ("Control_L", "Shift_L", "v"): modifiers with
// -M / -m, other keys with -P / -p, released in reverse order. An error names a symbol that is
// not a key symbol.
Result<std::vector<std::string>> wtypeChordArguments(const std::vector<std::string>& keysyms);

// The focused window in sway's tree (`swaymsg -t get_tree -r`): its node id, and its Wayland
// app_id as instance and class (X11 programs under XWayland: WM_CLASS); empty when none is
// focused or the text is not sway's tree.
FocusedWindow swayFocusedWindow(std::string_view treeJson);

} // namespace hearsay
