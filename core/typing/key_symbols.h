// The key symbol that types a character, for the typers that send key symbols: X11's XTest typer
// looks it up in the keyboard's layout, the portal's typer hands it to the desktop as it is.
#pragma once

#include <xkbcommon/xkbcommon.h>

#include <cstdint>

namespace hearsay {

// "\n" is Return and "\t" Tab; another control character has none (XKB_KEY_NoSymbol); anything
// else gets libxkbcommon's (a layout's own legacy symbol where one exists, such as rcaron for ř,
// else the Unicode one).
inline uint32_t keysymForCharacter(uint32_t cp) {
    if (cp == '\n') return XKB_KEY_Return;
    if (cp == '\t') return XKB_KEY_Tab;
    if (cp < 0x20 || cp == 0x7F) return XKB_KEY_NoSymbol;
    return xkb_utf32_to_keysym(cp);
}

} // namespace hearsay
