// The JSON reader behind config.json, generation_config.json, tokenizer.json and vocab.json:
// arbitrary text parses or fails with a message; what parses survives a dump and a re-parse.
#include "fuzz_support.h"

#include "core/util/json.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto json = hearsay::Json::parse(text);
    if (!json) {
        HEARSAY_FUZZ_CHECK(!json.message().empty());
        return 0;
    }
    const std::string once = json->dump();
    auto again = hearsay::Json::parse(once);
    HEARSAY_FUZZ_CHECK(again.ok());
    HEARSAY_FUZZ_CHECK(again->dump() == once);
    return 0;
}
