// zlib.compress(text) size ratio, as whisper/utils.py compression_ratio.
#include "core/decoding/compression_ratio.h"

#include <vector>
#include <zlib.h>

namespace hearsay {

double compressionRatio(std::string_view text) {
    uLongf capacity = compressBound(uLong(text.size()));
    std::vector<Bytef> out(capacity);
    if (compress2(out.data(), &capacity, reinterpret_cast<const Bytef*>(text.data()), uLong(text.size()),
                  Z_DEFAULT_COMPRESSION) != Z_OK || capacity == 0)
        return 0.0;
    return double(text.size()) / double(capacity);
}

} // namespace hearsay
