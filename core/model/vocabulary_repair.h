// whisper.cpp's early converter stored each token as bytes.decode('utf-8', errors='replace'):
// the ~1,500 tokens that are partial UTF-8 sequences (single bytes 0x80-0xFF, pieces of CJK
// characters) became U+FFFD and many collide. Its test files (../shared/data) are such files.
// This restores the official vocabularies' true bytes from a table of those tokens.
#pragma once

#include <string>
#include <vector>

namespace hearsay {

struct VocabularyRepair {
    int repaired = 0;       // tokens whose lossy bytes were replaced by the true ones
    bool recognised = true; // false: the lossy tokens do not match the official vocabulary (left as is)
};

// `tokens` by id; `multilingual` picks the table (multilingual.tiktoken or gpt2.tiktoken). A
// lossless vocabulary is left unchanged (repaired = 0). Every token the table names must be
// either already exact or lossy (contain U+FFFD); otherwise nothing is changed.
VocabularyRepair repairWhisperCppVocabulary(std::vector<std::string>& tokens, bool multilingual);

} // namespace hearsay
