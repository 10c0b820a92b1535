// How a newline in dictated text ("new line" said aloud, a replacement rule's \n) goes into
// another application. Return is what a keyboard's Enter key gives, and in chat applications
// (Slack, Discord, Element, Teams, a browser's chat box) it sends the message; Shift+Enter is
// their line break, and plain editors take it as a line break too; a space keeps the text on
// one line. The text is planned into steps: pieces of text, and the line breaks between them
// that are pressed as a chord rather than typed or pasted.
#pragma once

#include "core/util/result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

enum class NewlineMode { Return, ShiftEnter, Space };

// The chord of a ShiftEnter line break, for TextTyper::pressChord.
inline const std::vector<std::string>& shiftEnterChord() {
    static const std::vector<std::string> chord = {"Shift_L", "Return"};
    return chord;
}

struct InsertionStep {
    std::string text;        // typed or pasted as it is; empty for a line break
    bool lineBreak = false;  // press Shift+Enter
    bool operator==(const InsertionStep&) const = default;
};

// The steps that put `utf8` into the target:
//  - Return: the text itself, one step (typed, "\n" is Return; pasted, the newline is pasted as-is);
//  - ShiftEnter: the text split at each "\n", a line break step for each newline (two for a blank
//    line), no empty text steps;
//  - Space: one step, each run of whitespace that holds a newline made one space (none at the
//    very start, so that a text which starts with a newline does not start with a space).
// Empty input gives no steps.
std::vector<InsertionStep> planNewlines(std::string_view utf8, NewlineMode mode);

class TextTyper;

// Types `utf8` into the focused window with `typer`, its newlines as `mode` says (a line break
// pressed as Shift+Enter): the key-by-key path of `hearsay-cli type` and `stream --type`.
Result<void> typeWithNewlines(TextTyper& typer, std::string_view utf8, NewlineMode mode);

// "return", "shift-enter", "space" (the settings' words); nullopt for another word.
std::optional<NewlineMode> newlineModeFromName(std::string_view name);
std::string newlineModeName(NewlineMode mode);

} // namespace hearsay
