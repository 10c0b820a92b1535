// The JSON reader behind config.json, generation_config.json, tokenizer.json and vocab.json
// (parseJson on nlohmann-json): arbitrary text parses or fails with a message naming a byte
// inside the text, never an exception; what parses survives a dump and a re-parse.
#include "fuzz_support.h"

#include "core/util/json_text.h"

#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto json = hearsay::parseJson(text);
    if (!json) {
        const std::string& message = json.message();
        HEARSAY_FUZZ_CHECK(message.rfind("invalid JSON at byte ", 0) == 0);
        const size_t offset = std::stoull(message.substr(std::string_view("invalid JSON at byte ").size()));
        HEARSAY_FUZZ_CHECK(offset <= size);
        return 0;
    }
    const std::string once = hearsay::dumpJson(json.value());
    auto again = hearsay::parseJson(once);
    HEARSAY_FUZZ_CHECK(again.ok());
    HEARSAY_FUZZ_CHECK(hearsay::dumpJson(again.value()) == once);
    return 0;
}
