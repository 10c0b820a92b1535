// Committed text pasted into another application on Wayland: the text goes on the clipboard with
// wl-copy (Debian package wl-clipboard), the typer presses the target's paste chord, and the
// user's previous clipboard content, read with wl-paste beforehand, is put back afterwards when it
// was text and no other program set the clipboard meanwhile. A program's Wayland clipboard is
// not reachable through Qt's (Qt serves it only while one of its own windows has the focus),
// hence the helper programs.
//
// Wayland does not say when the target has fetched the text: the content goes back
// restoreAfterMs after the chord (wl-copy returns once the compositor has the new selection, so
// the chord never races the copy). The call blocks for that time.
#pragma once

#include "core/typing/insertion_method.h"
#include "core/typing/text_typer.h"
#include "core/util/result.h"

#include <functional>
#include <string>
#include <string_view>

namespace hearsay {

struct WaylandPasteOutcome {
    bool restored = false;  // the user's content is back (or the clipboard empty again, as it was)
    std::string note;       // why it is not, for messages; empty when restored
};

class WaylandPaste {
public:
    static constexpr int kRestoreAfterMs = 1000;

    explicit WaylandPaste(int restoreAfterMs = kRestoreAfterMs) : m_restoreAfterMs(restoreAfterMs) {}

    // Pastes `text` with `chord` pressed by `typer` (the primary selection when the chord asks
    // for it); `chordSent`, when given, is called once the chord has gone, before the wait for
    // the restore. An error, with the clipboard as it was, when wl-clipboard is missing, the copy
    // fails or the chord cannot be pressed.
    Result<WaylandPasteOutcome> paste(std::string_view text, TextTyper& typer, const PasteChord& chord,
                                      const std::function<void()>& chordSent = {}) const;

private:
    int m_restoreAfterMs;
};

} // namespace hearsay
