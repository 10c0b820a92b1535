// A user's replacement rules for dictated text ("hearsay" → "Hearsay", "new line" → a newline,
// regular expressions allowed), applied to each committed piece before it is shown, journaled or
// typed into another application. The rules come from a text file or the settings, one per line:
//
//     hearsay => Hearsay              a word or phrase, matched whole and in any case
//     re:\bq(\d)\b => Q$1             an ECMAScript regular expression ($1: its first group)
//     # a comment; blank lines are skipped
//
// In a replacement, \n and \t stand for a newline and a tab. Rules apply in order, each to the
// text the ones before it left.
#pragma once

#include "core/util/result.h"

#include <filesystem>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

class ReplacementRules {
public:
    // Errors name the line and what is wrong with it (no "=>", an empty pattern, a regular
    // expression that does not compile).
    static Result<ReplacementRules> parse(std::string_view text);
    static Result<ReplacementRules> load(const std::filesystem::path& path);

    bool empty() const { return m_rules.empty(); }
    size_t size() const { return m_rules.size(); }
    // The text with every rule applied. A rule whose matching fails (a regular expression too
    // complex for this text) is skipped.
    std::string apply(std::string_view text) const;

private:
    struct Rule {
        std::regex pattern;
        std::string replacement;  // in std::regex_replace's format ($1, $&, $$)
    };
    std::vector<Rule> m_rules;
};

// What committed dictated text goes through before it is shown, journaled or typed: the spoken
// commands of a language (core/transcript/spoken_commands.h), when on, then the replacement rules.
struct DictatedTextRewrite {
    std::string spokenCommandsLanguage;  // empty: spoken commands off
    ReplacementRules rules;
    std::string apply(std::string_view text) const;
};

// A user's vocabulary (names, jargon) as prompt text for the decoder: one word or phrase a line
// ("#" comments and blank lines skipped), joined with ", ". Empty when there is none.
std::string vocabularyPrompt(std::string_view text);
Result<std::string> loadVocabularyPrompt(const std::filesystem::path& path);

} // namespace hearsay
