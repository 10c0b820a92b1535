// SHA-256, incremental, computed by OpenSSL's EVP interface (libcrypto): the downloader hashes a
// model file while it arrives and while it resumes from a partial file, so verification needs no
// second pass over the data.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "core/util/result.h"

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of this header

namespace hearsay::hub {

class Sha256 {
public:
    Sha256();
    void update(const void* data, size_t bytes);
    // The digest as 64 lower-case hex digits; the object is spent afterwards. Empty in the
    // unlikely case libcrypto failed (no digest matches it, so a download's check fails).
    std::string hexDigest();

private:
    struct Free {
        void operator()(evp_md_ctx_st* context) const;
    };
    std::unique_ptr<evp_md_ctx_st, Free> m_context;
    bool m_ok = false;
};

std::string sha256Hex(std::string_view bytes);
// Hashes a whole file (streamed, 1 MiB at a time).
Result<std::string> sha256OfFile(const std::filesystem::path& path);

} // namespace hearsay::hub
