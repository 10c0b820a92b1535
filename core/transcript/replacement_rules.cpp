// Replacement rules and vocabulary for dictated text (see replacement_rules.h).
#include "core/transcript/replacement_rules.h"

#include "core/transcript/spoken_commands.h"
#include "core/util/mapped_file.h"
#include "core/util/strings.h"

#include <cctype>

namespace hearsay {
namespace {

constexpr size_t kMaxFileBytes = size_t(1) << 20;  // a rules or vocabulary file is text a user wrote

// The lines of `text` that hold something: stripped, comments and blank lines left out, with
// their 1-based numbers.
std::vector<std::pair<int, std::string>> contentLines(std::string_view text) {
    std::vector<std::pair<int, std::string>> lines;
    int number = 0;
    for (size_t start = 0; start <= text.size();) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        ++number;
        std::string line = stripWhitespace(text.substr(start, end - start));
        if (!line.empty() && line[0] != '#') lines.emplace_back(number, std::move(line));
        start = end + 1;
    }
    return lines;
}

bool isWordByte(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (static_cast<unsigned char>(c) & 0x80); }

// A literal phrase as a regular expression: special characters escaped, runs of spaces matching
// any run of whitespace, word boundaries where the phrase begins or ends with a word character.
std::string literalPattern(const std::string& phrase) {
    std::string out;
    if (isWordByte(phrase.front())) out += "\\b";
    bool space = false;
    for (char c : phrase) {
        if (c == ' ' || c == '\t') {
            space = true;
            continue;
        }
        if (space) out += "\\s+";
        space = false;
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    if (isWordByte(phrase.back())) out += "\\b";
    return out;
}

// \n and \t in a replacement become a newline and a tab; a literal rule's replacement also has
// its $ doubled (it is text, not a format).
std::string replacementFormat(const std::string& text, bool literal) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == 'n' || text[i + 1] == 't')) {
            out += text[i + 1] == 'n' ? '\n' : '\t';
            ++i;
        } else if (literal && text[i] == '$') {
            out += "$$";
        } else {
            out += text[i];
        }
    }
    return out;
}

} // namespace

Result<ReplacementRules> ReplacementRules::parse(std::string_view text) {
    ReplacementRules rules;
    for (const auto& [number, line] : contentLines(text)) {
        const size_t arrow = line.find("=>");
        const std::string where = "replacement rule on line " + std::to_string(number);
        if (arrow == std::string::npos) return makeError(where + ": no \"=>\" between the text and its replacement");
        std::string pattern = stripWhitespace(std::string_view(line).substr(0, arrow));
        const std::string replacement = stripWhitespace(std::string_view(line).substr(arrow + 2));
        const bool regex = pattern.rfind("re:", 0) == 0;
        if (regex) pattern = stripWhitespace(std::string_view(pattern).substr(3));
        if (pattern.empty()) return makeError(where + ": nothing to replace before \"=>\"");
        try {
            auto flags = std::regex::ECMAScript;
            if (!regex) flags |= std::regex::icase;
            rules.m_rules.push_back({std::regex(regex ? pattern : literalPattern(pattern), flags), replacementFormat(replacement, !regex)});
        } catch (const std::regex_error& e) {
            return makeError(where + ": not a valid regular expression (" + e.what() + ")");
        }
    }
    return rules;
}

Result<ReplacementRules> ReplacementRules::load(const std::filesystem::path& path) {
    auto text = readTextFile(path, kMaxFileBytes);
    if (!text) return text.error();
    auto rules = parse(text.value());
    if (!rules) return makeError(path.string() + ": " + rules.message());
    return rules;
}

std::string ReplacementRules::apply(std::string_view text) const {
    std::string out(text);
    for (const Rule& rule : m_rules) {
        try {
            out = std::regex_replace(out, rule.pattern, rule.replacement);
        } catch (const std::regex_error&) {
            // Too complex for this text (error_complexity, error_stack): the rule is skipped.
        }
    }
    return out;
}

std::string DictatedTextRewrite::apply(std::string_view text) const {
    std::string out = spokenCommandsLanguage.empty() ? std::string(text) : applySpokenCommands(text, spokenCommandsLanguage);
    return rules.empty() ? out : rules.apply(out);
}

std::string vocabularyPrompt(std::string_view text) {
    std::string out;
    for (const auto& [number, line] : contentLines(text)) {
        (void)number;
        if (!out.empty()) out += ", ";
        out += line;
    }
    return out;
}

Result<std::string> loadVocabularyPrompt(const std::filesystem::path& path) {
    auto text = readTextFile(path, kMaxFileBytes);
    if (!text) return text.error();
    return vocabularyPrompt(text.value());
}

} // namespace hearsay
