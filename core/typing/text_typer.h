// Typing text into the focused window of another application, as if the user typed it: the way
// dictated (committed) text reaches an editor, a chat box or a terminal. One implementation per
// display system; openTextTyper() picks the one the session runs (X11 today).
#pragma once

#include "core/util/result.h"

#include <memory>
#include <string>
#include <string_view>

namespace hearsay {

class TextTyper {
public:
    virtual ~TextTyper() = default;
    // Types `utf8` into the window that has the keyboard focus now; "\n" is Return, "\t" Tab.
    // Every character goes, or the error names the first that could not (nothing after it is
    // typed, so the target never holds a part out of order).
    virtual Result<void> type(std::string_view utf8) = 0;
    // "X11 (XTest) on :1, layout group 1": what types, for messages and the settings.
    virtual std::string describe() const = 0;
};

// The typer of this desktop session: X11 through XTest when $DISPLAY names a server that has the
// extension; otherwise an error that says why (no display; Wayland without X11 is not supported yet).
Result<std::unique_ptr<TextTyper>> openTextTyper();

} // namespace hearsay
