// Word error rate (see word_error_rate.h).
#include "core/transcript/word_error_rate.h"

#include "core/text/unicode_class.h"
#include "core/text/utf8.h"

#include <algorithm>

namespace hearsay {
namespace {

// Lower case for ASCII, Latin-1 and Latin Extended-A: what the languages of the tests need
// (Python's str.lower() covers all of Unicode; these ranges agree with it).
char32_t lower(char32_t c) {
    if (c >= U'A' && c <= U'Z') return c + 32;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
    if (c >= 0x100 && c <= 0x17E && c != 0x130 && c != 0x138 && c != 0x149 && c != 0x178) {
        const bool evenUpper = (c < 0x139 || c > 0x148) && (c < 0x179);
        if (evenUpper ? (c % 2 == 0) : (c % 2 == 1)) return c + 1;
    }
    if (c == 0x178) return 0xFF;
    return c;
}

bool isWordChar(char32_t c) {
    const CharClass k = charClass(c);
    return k == CharClass::Letter || k == CharClass::Number || c == U'_';
}

} // namespace

std::string normaliseForWer(std::string_view text) {
    // Decode, lower-case, map punctuation to spaces; an apostrophe stays only between word characters.
    std::vector<char32_t> chars;
    for (size_t pos = 0; pos < text.size();) {
        const Utf8Char u = decodeUtf8(text, pos);
        pos += u.length;
        char32_t c = u.status == Utf8Char::Status::Valid ? u.codePoint : U' ';
        if (c == 0x2019) c = U'\'';
        chars.push_back(lower(c));
    }
    std::string out;
    bool pendingSpace = false;
    for (size_t i = 0; i < chars.size(); ++i) {
        char32_t c = chars[i];
        const bool apostrophe = c == U'\'' && i > 0 && i + 1 < chars.size() && isWordChar(chars[i - 1]) && isWordChar(chars[i + 1]);
        if (!(isWordChar(c) || apostrophe)) {
            pendingSpace = !out.empty();
            continue;
        }
        if (pendingSpace) out += ' ';
        pendingSpace = false;
        appendUtf8(out, c);
    }
    return out;
}

std::vector<std::string> werWords(std::string_view text) {
    std::vector<std::string> words;
    const std::string n = normaliseForWer(text);
    size_t start = 0;
    while (start < n.size()) {
        size_t end = n.find(' ', start);
        if (end == std::string::npos) end = n.size();
        words.push_back(n.substr(start, end - start));
        start = end + 1;
    }
    return words;
}

namespace {

// The last row of the word-level Levenshtein table: row[j] is the distance between the whole
// reference and the hypothesis's first j words.
std::vector<int> distancesToPrefixes(const std::vector<std::string>& r, const std::vector<std::string>& h) {
    std::vector<int> d(h.size() + 1);
    for (size_t j = 0; j <= h.size(); ++j) d[j] = int(j);
    for (size_t i = 1; i <= r.size(); ++i) {
        int previous = d[0];
        d[0] = int(i);
        for (size_t j = 1; j <= h.size(); ++j) {
            const int current = std::min({d[j] + 1, d[j - 1] + 1, previous + (r[i - 1] != h[j - 1] ? 1 : 0)});
            previous = d[j];
            d[j] = current;
        }
    }
    return d;
}

} // namespace

WordErrors wordErrors(std::string_view reference, std::string_view hypothesis) {
    const auto r = werWords(reference);
    return WordErrors{distancesToPrefixes(r, werWords(hypothesis)).back(), int(r.size())};
}

WordErrors leadingWordErrors(std::string_view reference, std::string_view hypothesis) {
    const auto r = werWords(reference);
    const std::vector<int> d = distancesToPrefixes(r, werWords(hypothesis));
    return WordErrors{*std::min_element(d.begin(), d.end()), int(r.size())};
}

} // namespace hearsay
