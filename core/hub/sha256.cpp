#include "core/hub/sha256.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace hearsay::hub {

void Sha256::Free::operator()(evp_md_ctx_st* context) const { EVP_MD_CTX_free(context); }

Sha256::Sha256() : m_context(EVP_MD_CTX_new()) {
    m_ok = m_context && EVP_DigestInit_ex(m_context.get(), EVP_sha256(), nullptr) == 1;
}

void Sha256::update(const void* data, size_t bytes) {
    if (m_ok && bytes > 0) m_ok = EVP_DigestUpdate(m_context.get(), data, bytes) == 1;
}

std::string Sha256::hexDigest() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!m_ok || EVP_DigestFinal_ex(m_context.get(), digest, &length) != 1) return {};
    m_ok = false;
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
        out.push_back(hex[digest[i] >> 4]);
        out.push_back(hex[digest[i] & 0xf]);
    }
    return out;
}

std::string sha256Hex(std::string_view bytes) {
    Sha256 h;
    h.update(bytes.data(), bytes.size());
    return h.hexDigest();
}

Result<std::string> sha256OfFile(const std::filesystem::path& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return makeError("cannot read " + path.string() + ": " + std::strerror(errno));
    Sha256 h;
    std::vector<char> buffer(size_t(1) << 20);
    size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), f)) > 0) h.update(buffer.data(), n);
    const bool failed = std::ferror(f);
    std::fclose(f);
    if (failed) return makeError("cannot read " + path.string());
    return h.hexDigest();
}

} // namespace hearsay::hub
