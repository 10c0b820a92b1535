// The text that goes into another application for each committed piece of a dictation: Whisper
// starts a piece with a space, which the first piece of a run must not type (the cursor may be at
// the start of a line or after the user's own space), and a piece that lacks one gets one, so
// that consecutive insertions never run words together.
#pragma once

#include <string>
#include <string_view>

namespace hearsay {

class InsertionSpacing {
public:
    // What to type for `committed`; empty for a piece that is only whitespace.
    std::string next(std::string_view committed);
    // The next piece starts a new insertion (no space before it), e.g. a new dictation.
    void reset() { m_typed = false; m_lastWasSpace = false; }

private:
    bool m_typed = false;
    bool m_lastWasSpace = false;
};

} // namespace hearsay
