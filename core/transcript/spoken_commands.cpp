// Spoken commands (see spoken_commands.h).
#include "core/transcript/spoken_commands.h"

#include <regex>

namespace hearsay {
namespace {

struct Command {
    const char* words;  // a regular expression over the spoken words (matched whole, any case)
    const char* text;   // what they become, joined to the word before
};

// Longer phrases first: "new paragraph" before "new line", "question mark" before anything shorter.
const std::vector<Command>& table(std::string_view language) {
    static const std::vector<Command> en = {
        {"new paragraph", "\n\n"}, {"new line", "\n"},
        {"question mark", "?"},    {"exclamation (?:mark|point)", "!"},
        {"full stop|period", "."}, {"comma", ","},
        {"semicolon", ";"},        {"colon", ":"},
    };
    static const std::vector<Command> de = {
        {"neuer absatz", "\n\n"}, {"neue zeile", "\n"},
        {"fragezeichen", "?"},    {"ausrufezeichen", "!"},
        {"punkt", "."},           {"komma", ","},
        {"semikolon", ";"},       {"doppelpunkt", ":"},
    };
    return language == "de" ? de : en;
}

} // namespace

const std::vector<std::string>& spokenCommandLanguages() {
    static const std::vector<std::string> languages = {"en", "de"};
    return languages;
}

std::string applySpokenCommands(std::string_view text, std::string_view language) {
    std::string out(text);
    for (const Command& c : table(language)) {
        // The punctuation Whisper put around the spoken word goes with it; so do the spaces before
        // it, which a mark does not have.
        const std::regex pattern(std::string("[\\s,.;:!?]*\\b(?:") + c.words + ")\\b[,.;:!?]*",
                                 std::regex::ECMAScript | std::regex::icase);
        std::string replacement;
        for (const char* p = c.text; *p; ++p) replacement += *p == '$' ? std::string("$$") : std::string(1, *p);
        out = std::regex_replace(out, pattern, replacement);
    }
    // A new line keeps no spaces after it.
    out = std::regex_replace(out, std::regex("\n[ \t]+"), "\n");
    return out;
}

} // namespace hearsay
