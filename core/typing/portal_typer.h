// Typing through the XDG desktop portal's RemoteDesktop interface, keyboard only: the way into
// other applications on GNOME and KDE Wayland sessions, whose compositors offer programs no
// virtual keyboard. Hearsay asks the desktop for a keyboard (the desktop asks the user), then sends
// each character as a key symbol, which the compositor types with the user's own layout.
// Where the portal can keep the permission (RemoteDesktop version 2 on: xdg-desktop-portal 1.17 and
// later), it is asked to until the user revokes it, and the restore token it returns is kept in
// portalRestoreTokenPath(), so the question comes once, not at every start.
//
// The session bus is spoken with sd-bus (libsystemd). A request's answer comes as a Response
// signal on a request object; each wait is bounded (the desktop's dialog for Start by
// startTimeoutMs).
#pragma once

#include "core/typing/text_typer.h"

#include <memory>
#include <string>

namespace hearsay {

inline constexpr int kPortalStartTimeoutMs = 120000;  // the user reads the desktop's question

// A started RemoteDesktop session with a keyboard; an error says why there is none in one line:
// no session bus, no portal or one without RemoteDesktop, no keyboard offered, the user refused.
Result<std::unique_ptr<TextTyper>> openPortalTyper(int startTimeoutMs = kPortalStartTimeoutMs);

bool isPortalTyper(const TextTyper& typer);

// Where the restore token is kept: $XDG_STATE_HOME/hearsay/remote-desktop-token (default
// ~/.local/state).
std::string portalRestoreTokenPath();

} // namespace hearsay
