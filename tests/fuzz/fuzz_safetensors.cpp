// The safetensors reader on arbitrary bytes: the u64 header length, the JSON header, the tensor
// table (dtypes, shapes, offsets). Accepted files must describe views inside the input.
#include "fuzz_support.h"

#include "core/model/safetensors.h"

#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    auto file = hearsay::readSafetensors(bytes, "fuzz.safetensors");
    if (!file) {
        HEARSAY_FUZZ_CHECK(!file.message().empty());
        return 0;
    }
    for (const auto& [name, tensor] : file->tensors) {
        (void)name;
        const auto* begin = reinterpret_cast<const std::byte*>(data);
        HEARSAY_FUZZ_CHECK(tensor.data >= begin && tensor.data + tensor.bytes <= begin + size);
        HEARSAY_FUZZ_CHECK(int64_t(tensor.bytes) == hearsay::dtypeBytes(tensor.dtype, tensor.elements()));
    }
    return 0;
}
