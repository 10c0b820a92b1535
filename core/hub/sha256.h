// SHA-256 (FIPS 180-4), incremental: the downloader hashes a model file while it arrives and
// while it resumes from a partial file, so verification needs no second pass over the data.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/util/result.h"

namespace hearsay::hub {

class Sha256 {
public:
    Sha256();
    void update(const void* data, size_t bytes);
    // The digest as 64 lower-case hex digits; the object is spent afterwards.
    std::string hexDigest();

private:
    void block(const uint8_t* p);
    std::array<uint32_t, 8> m_state{};
    std::array<uint8_t, 64> m_buffer{};
    size_t m_buffered = 0;
    uint64_t m_total = 0;
};

std::string sha256Hex(std::string_view bytes);
// Hashes a whole file (streamed, 1 MiB at a time).
Result<std::string> sha256OfFile(const std::filesystem::path& path);

} // namespace hearsay::hub
