// ggml vocabulary reader (see vocabulary_file.h): every read is bounds-checked, so a truncated
// or corrupt file gives an error naming the file and the field.
#include "core/text/vocabulary_file.h"

#include "core/util/mapped_file.h"

#include <cstdio>
#include <cstring>

namespace hearsay {
namespace {

class VocabularyReader {
public:
    VocabularyReader(std::span<const std::byte> data, const std::string& name) : m_data(data), m_name(name) {}

    bool read32(uint32_t& value, const char* what) {
        if (!need(4, what)) return false;
        const auto* p = reinterpret_cast<const unsigned char*>(m_data.data() + m_pos);
        value = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
        m_pos += 4;
        return true;
    }
    bool readInt(int32_t& value, const char* what) {
        uint32_t u = 0;
        if (!read32(u, what)) return false;
        std::memcpy(&value, &u, sizeof value);
        return true;
    }
    bool skip(uint64_t bytes, const char* what) {
        if (!need(bytes, what)) return false;
        m_pos += static_cast<size_t>(bytes);
        return true;
    }
    bool readBytes(std::string& out, uint64_t bytes, const char* what) {
        if (!need(bytes, what)) return false;
        out.assign(reinterpret_cast<const char*>(m_data.data() + m_pos), static_cast<size_t>(bytes));
        m_pos += static_cast<size_t>(bytes);
        return true;
    }
    size_t pos() const { return m_pos; }
    size_t remaining() const { return m_data.size() - m_pos; }
    Error fail(const std::string& what) const {
        return makeError(m_name + ": " + what + " (at byte " + std::to_string(m_pos) + ")");
    }
    const std::string& error() const { return m_error; }

private:
    bool need(uint64_t bytes, const char* what) {
        if (bytes <= remaining()) return true;
        m_error = m_name + ": truncated ggml file: " + what + " needs " + std::to_string(bytes) + " bytes at byte " +
                  std::to_string(m_pos) + ", but the file has " + std::to_string(remaining()) + " left";
        return false;
    }

    std::span<const std::byte> m_data;
    const std::string& m_name;
    size_t m_pos = 0;
    std::string m_error;
};

} // namespace

Result<GgmlVocabulary> parseGgmlVocabulary(std::span<const std::byte> file, const std::string& name) {
    VocabularyReader r(file, name);
    uint32_t magic = 0;
    if (!r.read32(magic, "the magic number")) return makeError(r.error());
    if (magic != 0x67676d6c) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%08x", magic);
        return makeError(name + ": not a whisper.cpp ggml file (magic " + hex + ", expected 0x67676d6c)");
    }
    int32_t hparams[11] = {};
    for (int32_t& h : hparams) {
        if (!r.readInt(h, "the hyperparameters")) return makeError(r.error());
    }
    GgmlVocabulary vocab;
    vocab.nVocab = hparams[0];
    if (vocab.nVocab <= 0) return r.fail("n_vocab is " + std::to_string(vocab.nVocab));

    int32_t nMel = 0;
    int32_t nFft = 0;
    if (!r.readInt(nMel, "the filterbank's n_mel") || !r.readInt(nFft, "the filterbank's n_fft")) {
        return makeError(r.error());
    }
    if (nMel < 0 || nFft < 0) {
        return r.fail("the mel filterbank has a negative size " + std::to_string(nMel) + " x " + std::to_string(nFft));
    }
    if (!r.skip(uint64_t(nMel) * uint64_t(nFft) * 4, "the mel filterbank")) return makeError(r.error());

    int32_t count = 0;
    if (!r.readInt(count, "the vocabulary count")) return makeError(r.error());
    if (count < 0 || count > vocab.nVocab) {
        return r.fail("the vocabulary count is " + std::to_string(count) + " for n_vocab " +
                      std::to_string(vocab.nVocab));
    }
    if (uint64_t(count) * 4 > r.remaining()) {  // each entry has at least its length field
        return r.fail("the vocabulary count " + std::to_string(count) + " does not fit in the " +
                      std::to_string(r.remaining()) + " bytes left");
    }
    vocab.tokens.resize(static_cast<size_t>(count));
    for (int32_t id = 0; id < count; ++id) {
        uint32_t length = 0;
        if (!r.read32(length, "a token length")) return makeError(r.error());
        if (!r.readBytes(vocab.tokens[size_t(id)], length, "a token's bytes")) {
            return makeError(r.error() + " (token " + std::to_string(id) + " of " + std::to_string(count) + ")");
        }
    }
    vocab.endOffset = r.pos();
    return vocab;
}

Result<std::vector<std::string>> readGgmlVocabulary(const std::filesystem::path& path) {
    Result<std::shared_ptr<const MappedFile>> file = MappedFile::open(path);
    if (!file) return makeError(file.message());
    Result<GgmlVocabulary> vocab = parseGgmlVocabulary(file.value()->bytes(), path.string());
    if (!vocab) return makeError(vocab.message());
    return std::move(vocab.value().tokens);
}

} // namespace hearsay
