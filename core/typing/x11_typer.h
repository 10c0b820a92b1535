// Typing on X11 through the XTest extension, with each character's key and level looked up in the
// keyboard's current layout (details in x11_typer.cpp).
#pragma once

#include "core/typing/text_typer.h"

#include <memory>

namespace hearsay {

// The XTest typer for $DISPLAY; an error when there is no display or it lacks XTest.
Result<std::unique_ptr<TextTyper>> openX11Typer();

} // namespace hearsay
