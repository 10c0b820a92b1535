// The tokenizer on the real multilingual vocabulary (../shared/data/ggml-vocab-tiny.bin): decoding
// arbitrary ids (out of range, specials, timestamps, split UTF-8 sequences through the streaming
// decoder) and the byte-level encoding of arbitrary bytes, which must decode back to those bytes.
#include "fuzz_support.h"

#include "core/text/tokenizer.h"
#include "core/text/vocabulary_file.h"

#include <optional>

namespace {

const hearsay::Tokenizer& tokenizer() {
    static const std::optional<hearsay::Tokenizer> t = []() -> std::optional<hearsay::Tokenizer> {
        auto tokens = hearsay::readGgmlVocabulary(HEARSAY_SHARED_DATA_DIR "/ggml-vocab-tiny.bin");
        if (!tokens) hearsay::fuzz::fail(tokens.message().c_str());
        auto made = hearsay::Tokenizer::fromVocabulary(tokens.value(), 51865);
        if (!made) hearsay::fuzz::fail(made.message().c_str());
        return made.value();
    }();
    return *t;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const hearsay::Tokenizer& t = tokenizer();
    // The bytes as text: encode, then the ids decode to exactly these bytes (the vocabulary has
    // lossy entries, which encode() never produces).
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::vector<int> ids = t.encode(text);
    for (int id : ids) HEARSAY_FUZZ_CHECK(id >= 0 && id < t.special().eot);
    HEARSAY_FUZZ_CHECK(t.decodeBytes(ids) == text);
    // The bytes as 16-bit ids, anything from negative to past the vocabulary.
    std::vector<int> arbitrary;
    for (size_t i = 0; i + 1 < size; i += 2) arbitrary.push_back(int(int16_t(uint16_t(data[i]) | uint16_t(data[i + 1]) << 8)) * 2);
    (void)t.decode(arbitrary);
    hearsay::Utf8StreamDecoder stream(t);
    std::string streamed;
    for (int id : arbitrary) {
        streamed += stream.push(id);
        (void)t.tokenText(id);
    }
    streamed += stream.flush();
    HEARSAY_FUZZ_CHECK(streamed == t.decode(arbitrary));
    return 0;
}
