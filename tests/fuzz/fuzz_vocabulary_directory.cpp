// The vocabulary of a checkpoint directory (tokenizer.json as faster-whisper's models carry it,
// vocab.json, vocabulary.json, vocabulary.txt): the first byte picks the file name, the rest is its
// content. A vocabulary read must have every ordinary id of the model.
#include "fuzz_support.h"

#include "core/text/vocabulary_directory.h"

#include <array>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    static const std::array<const char*, 4> kNames = {"tokenizer.json", "vocab.json", "vocabulary.json", "vocabulary.txt"};
    static const std::array<int, 3> kVocabSizes = {51864, 51865, 51866};
    const std::filesystem::path dir = hearsay::fuzz::scratchDirectory() / "vocabulary";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const char* name = kNames[data[0] % kNames.size()];
    const int nVocab = kVocabSizes[(data[0] / kNames.size()) % kVocabSizes.size()];
    {
        std::ofstream out(dir / name, std::ios::binary);
        out.write(reinterpret_cast<const char*>(data + 1), std::streamsize(size - 1));
    }
    auto vocabulary = hearsay::readDirectoryVocabulary(dir, nVocab);
    if (!vocabulary) {
        HEARSAY_FUZZ_CHECK(!vocabulary.message().empty());
        return 0;
    }
    HEARSAY_FUZZ_CHECK(vocabulary.value().has_value());
    HEARSAY_FUZZ_CHECK(!vocabulary.value()->tokens.empty());
    return 0;
}
