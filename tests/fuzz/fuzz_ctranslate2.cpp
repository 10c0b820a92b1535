// CTranslate2's model.bin (faster-whisper's models): binary version, spec name, the variable table
// (names, ranks, dims, dtypes, byte counts) and the aliases. Accepted variables lie inside the file
// and hold exactly shape × type size bytes; aliases name variables.
#include "fuzz_support.h"

#include "core/model/ctranslate2_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto path = hearsay::fuzz::writeScratch("model.bin", data, size);
    auto file = hearsay::openCTranslate2(path);
    if (!file) {
        HEARSAY_FUZZ_CHECK(!file.message().empty());
        return 0;
    }
    const std::byte* begin = file->file->data();
    for (const auto& [name, v] : file->variables) {
        HEARSAY_FUZZ_CHECK(name == v.name);
        HEARSAY_FUZZ_CHECK(v.bytes == size_t(v.elements()) * hearsay::ct2TypeBytes(v.type));
        HEARSAY_FUZZ_CHECK(v.bytes == 0 || (v.data >= begin && v.data + v.bytes <= begin + file->file->size()));
    }
    for (const auto& [alias, target] : file->aliases) HEARSAY_FUZZ_CHECK(file->find(alias) != nullptr);
    return 0;
}
