// Which typer types in this desktop session (see text_typer.h).
#include "core/typing/text_typer.h"

#include "core/typing/portal_typer.h"
#include "core/typing/wayland_typer.h"
#include "core/typing/x11_typer.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

namespace hearsay {
namespace {

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// Whether $XDG_CURRENT_DESKTOP ("ubuntu:GNOME", "KDE") names `desktop` (case ignored).
bool desktopIs(const std::string& desktop) {
    std::istringstream names(environment("XDG_CURRENT_DESKTOP"));
    for (std::string name; std::getline(names, name, ':');) {
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::toupper(c)); });
        if (name == desktop) return true;
    }
    return false;
}

} // namespace

Result<std::unique_ptr<TextTyper>> openTextTyper() {
    const std::string choice = environment("HEARSAY_TYPER");
    if (choice == "x11") return openX11Typer();
    if (choice == "wayland") return openWaylandTyper();
    if (choice == "portal") return openPortalTyper();
    if (!choice.empty())
        return makeError("cannot type into other applications: HEARSAY_TYPER is '" + choice +
                         "', not x11, wayland or portal");
    // On X11, XTest. A Wayland session does not type through XWayland's XTest (it would reach X11
    // programs only): GNOME and KDE offer programs no virtual keyboard, so the portal types there;
    // elsewhere (wlroots) wtype, and the portal where wtype finds no virtual keyboard.
    if (environment("WAYLAND_DISPLAY").empty()) return openX11Typer();
    if (desktopIs("GNOME") || desktopIs("KDE")) return openPortalTyper();
    auto wtype = openWaylandTyper();
    if (wtype) return wtype;
    auto portal = openPortalTyper();
    if (portal) return portal;
    return makeError(wtype.message() + "; " + portal.message());
}

bool textTyperAsksTheUser() {
    const std::string choice = environment("HEARSAY_TYPER");
    if (!choice.empty()) return choice == "portal";
    return !environment("WAYLAND_DISPLAY").empty() && (desktopIs("GNOME") || desktopIs("KDE"));
}

} // namespace hearsay
