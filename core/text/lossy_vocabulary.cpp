// Restoring what a lossy (U+FFFD-replaced) vocabulary still allows (see lossy_vocabulary.h).
#include "core/text/lossy_vocabulary.h"

#include "core/text/byte_unicode.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

namespace hearsay {

unsigned char gpt2ByteForId(int id) {
    // GPT-2 lists the bytes by their stand-in code point: printable bytes first, in order,
    // then the others (mapped to U+0100 and up), in order.
    static const std::array<unsigned char, 256> order = [] {
        std::array<unsigned char, 256> bytes{};
        for (int b = 0; b < 256; ++b) bytes[size_t(b)] = static_cast<unsigned char>(b);
        std::sort(bytes.begin(), bytes.end(),
                  [](unsigned char a, unsigned char b) { return byteToUnicode(a) < byteToUnicode(b); });
        return bytes;
    }();
    return order[static_cast<size_t>(id) & 0xFF];
}

Result<LossyVocabularyReport> repairLossyVocabulary(std::vector<std::string>& tokens) {
    LossyVocabularyReport report;
    const size_t byteIds = std::min<size_t>(tokens.size(), 256);
    for (size_t id = 0; id < byteIds; ++id) {
        const unsigned char expected = gpt2ByteForId(static_cast<int>(id));
        if (tokens[id] == kReplacementCharacter && expected >= 0x80) {
            tokens[id] = std::string(1, static_cast<char>(expected));
            ++report.restoredBytes;
        }
    }

    std::unordered_map<std::string_view, int> firstId;
    firstId.reserve(tokens.size());
    std::vector<bool> unusable(tokens.size(), false);
    for (size_t id = 0; id < tokens.size(); ++id) {
        if (tokens[id].empty()) continue;
        auto [it, inserted] = firstId.emplace(tokens[id], static_cast<int>(id));
        if (inserted) continue;
        if (tokens[id].find(kReplacementCharacter) == std::string::npos) {
            return makeError("tokens " + std::to_string(it->second) + " and " + std::to_string(id) +
                             " have the same bytes");
        }
        unusable[size_t(it->second)] = true;
        unusable[id] = true;
    }
    for (size_t id = 0; id < tokens.size(); ++id) {
        if (unusable[id]) report.unusable.push_back(static_cast<int>(id));
    }
    return report;
}

} // namespace hearsay
