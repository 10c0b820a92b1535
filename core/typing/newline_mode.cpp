// Newlines typed as Return, Shift+Enter or a space (see newline_mode.h).
#include "core/typing/newline_mode.h"

#include "core/typing/text_typer.h"

namespace hearsay {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Each run of whitespace holding a newline becomes one space (dropped at the start).
std::string newlinesAsSpaces(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
        if (text[i] != '\n' && !isBlank(text[i])) {
            out += text[i++];
            continue;
        }
        size_t end = i;
        bool newline = false;
        for (; end < text.size() && (text[end] == '\n' || isBlank(text[end])); ++end) newline = newline || text[end] == '\n';
        if (!newline) out.append(text.substr(i, end - i));
        else if (!out.empty()) out += ' ';
        i = end;
    }
    return out;
}

} // namespace

std::vector<InsertionStep> planNewlines(std::string_view utf8, NewlineMode mode) {
    std::vector<InsertionStep> steps;
    if (utf8.empty()) return steps;
    switch (mode) {
    case NewlineMode::Return: steps.push_back({std::string(utf8), false}); break;
    case NewlineMode::Space:
        if (std::string text = newlinesAsSpaces(utf8); !text.empty()) steps.push_back({std::move(text), false});
        break;
    case NewlineMode::ShiftEnter: {
        size_t start = 0;
        while (start <= utf8.size()) {
            const size_t newline = utf8.find('\n', start);
            const std::string_view piece = utf8.substr(start, newline == std::string_view::npos ? std::string_view::npos
                                                                                                  : newline - start);
            if (!piece.empty()) steps.push_back({std::string(piece), false});
            if (newline == std::string_view::npos) break;
            steps.push_back({std::string(), true});
            start = newline + 1;
        }
        break;
    }
    }
    return steps;
}

Result<void> typeWithNewlines(TextTyper& typer, std::string_view utf8, NewlineMode mode) {
    for (const InsertionStep& step : planNewlines(utf8, mode)) {
        auto done = step.lineBreak ? typer.pressChord(shiftEnterChord()) : typer.type(step.text);
        if (!done) return done;
    }
    return {};
}

std::optional<NewlineMode> newlineModeFromName(std::string_view name) {
    if (name == "return") return NewlineMode::Return;
    if (name == "shift-enter") return NewlineMode::ShiftEnter;
    if (name == "space") return NewlineMode::Space;
    return std::nullopt;
}

std::string newlineModeName(NewlineMode mode) {
    switch (mode) {
    case NewlineMode::ShiftEnter: return "shift-enter";
    case NewlineMode::Space: return "space";
    case NewlineMode::Return: break;
    }
    return "return";
}

} // namespace hearsay
