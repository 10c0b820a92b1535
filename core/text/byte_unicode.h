// GPT-2's reversible map between bytes and printable Unicode characters, used by the
// Hugging Face tokenizer files (vocab.json, merges.txt) to store byte strings as text.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace hearsay {

// Code point that stands for byte b.
inline char32_t byteToUnicode(unsigned char b) {
    static const std::array<char32_t, 256> table = [] {
        std::array<char32_t, 256> t{};
        auto printable = [](int c) { return (c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF); };
        int next = 256;
        for (int c = 0; c < 256; ++c) t[size_t(c)] = printable(c) ? char32_t(c) : char32_t(next++);
        return t;
    }();
    return table[b];
}

// Encodes raw token bytes as the UTF-8 text used in vocab.json.
std::string bytesToVocabText(std::string_view bytes);
// Decodes vocab.json text back to raw bytes; nullopt when a character is not in the map.
std::optional<std::string> vocabTextToBytes(std::string_view text);

} // namespace hearsay
