// whisper.cpp ggml files: validated reading in place, streaming writing.
#include "core/model/ggml_file.h"

#include "core/text/token_table.h"  // kMaxTokenBytes

#include <cerrno>
#include <cstring>
#include <set>

namespace hearsay {
namespace {

constexpr int32_t kQuantVersionFactor = 1000;  // GGML_QNT_VERSION_FACTOR: ftype += 1000 * version

// A bounds-checked cursor over the mapped bytes.
class GgmlReader {
public:
    GgmlReader(const std::byte* data, size_t size) : m_data(data), m_size(size) {}
    size_t offset() const { return m_pos; }
    size_t remaining() const { return m_size - m_pos; }
    bool atEnd() const { return m_pos == m_size; }
    bool readI32(int32_t& v) { return readRaw(&v, 4); }
    bool readU32(uint32_t& v) { return readRaw(&v, 4); }
    bool readRaw(void* out, size_t n) {
        if (remaining() < n) return false;
        std::memcpy(out, m_data + m_pos, n);
        m_pos += n;
        return true;
    }
    const std::byte* take(size_t n) {
        if (remaining() < n) return nullptr;
        const std::byte* p = m_data + m_pos;
        m_pos += n;
        return p;
    }

private:
    const std::byte* m_data;
    size_t m_size;
    size_t m_pos = 0;
};

} // namespace

std::optional<DType> dtypeFromGgmlType(int32_t type) {
    switch (type) {
    case 0: return DType::F32;
    case 1: return DType::F16;
    case 2: return DType::Q4_0;
    case 3: return DType::Q4_1;
    case 6: return DType::Q5_0;
    case 7: return DType::Q5_1;
    case 8: return DType::Q8_0;
    case 30: return DType::BF16;
    default: return std::nullopt;
    }
}

int32_t ggmlTypeOf(DType type) {
    switch (type) {
    case DType::F32: return 0;
    case DType::F16: return 1;
    case DType::Q4_0: return 2;
    case DType::Q4_1: return 3;
    case DType::Q5_0: return 6;
    case DType::Q5_1: return 7;
    case DType::Q8_0: return 8;
    case DType::BF16: return 30;
    }
    return -1;
}

Result<GgmlFile> openGgml(const std::filesystem::path& path) {
    auto mapped = MappedFile::open(path);
    if (!mapped) return mapped.error();
    GgmlFile out;
    out.file = mapped.value();
    const std::string where = path.string();
    GgmlReader r(out.file->data(), out.file->size());
    auto truncated = [&](const std::string& what) {
        return makeError(where + ": truncated ggml file: it ends inside " + what + " (at byte " + std::to_string(r.offset()) +
                         " of " + std::to_string(out.file->size()) + ")");
    };

    uint32_t magic = 0;
    if (!r.readU32(magic)) return makeError(where + ": not a ggml model file (too short for the magic number)");
    if (magic != kGgmlMagic) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%08x", magic);
        std::string hint = std::memcmp(out.file->data(), "GGUF", 4) == 0 ? " (a GGUF file; only whisper.cpp's ggml .bin format is supported)" : "";
        return makeError(where + ": not a ggml model file: magic " + hex + ", expected 0x67676d6c" + hint);
    }
    int32_t hp[11];
    for (int i = 0; i < 11; ++i) {
        if (!r.readI32(hp[i])) return truncated("the hyper-parameters");
    }
    WhisperConfig& c = out.config;
    c.nVocab = hp[0];
    c.nAudioCtx = hp[1];
    c.nAudioState = hp[2];
    c.nAudioHead = hp[3];
    c.nAudioLayer = hp[4];
    c.nTextCtx = hp[5];
    c.nTextState = hp[6];
    c.nTextHead = hp[7];
    c.nTextLayer = hp[8];
    c.nMels = hp[9];
    out.ftype = hp[10] % kQuantVersionFactor;
    if (auto ok = c.validate(); !ok) return makeError(where + ": " + ok.message());

    // Mel filterbank [n_mel][n_fft] float32.
    if (!r.readI32(out.nMelFilters) || !r.readI32(out.nFft)) return truncated("the mel filterbank header");
    if (out.nMelFilters != c.nMels || out.nFft != 201) {
        return makeError(where + ": mel filterbank is " + std::to_string(out.nMelFilters) + " x " + std::to_string(out.nFft) +
                         ", expected " + std::to_string(c.nMels) + " x 201");
    }
    out.melFilters.resize(size_t(out.nMelFilters) * size_t(out.nFft));
    if (!r.readRaw(out.melFilters.data(), out.melFilters.size() * 4)) return truncated("the mel filterbank");

    // Vocabulary: int32 count, then count x (uint32 length, bytes).
    int32_t nTokens = 0;
    if (!r.readI32(nTokens)) return truncated("the vocabulary size");
    if (nTokens < 0 || nTokens > c.nVocab) {
        return makeError(where + ": vocabulary holds " + std::to_string(nTokens) + " tokens, expected at most n_vocab = " +
                         std::to_string(c.nVocab));
    }
    out.vocabulary.reserve(size_t(nTokens));
    for (int32_t i = 0; i < nTokens; ++i) {
        uint32_t len = 0;
        if (!r.readU32(len)) return truncated("vocabulary entry " + std::to_string(i));
        if (len > kMaxTokenBytes) return makeError(where + ": vocabulary entry " + std::to_string(i) + " claims " + std::to_string(len) + " bytes");
        const std::byte* p = r.take(len);
        if (!p) return truncated("vocabulary entry " + std::to_string(i));
        out.vocabulary.emplace_back(reinterpret_cast<const char*>(p), len);
    }

    // Tensors until EOF.
    std::set<std::string> seen;
    while (!r.atEnd()) {
        const size_t start = r.offset();
        int32_t nDims = 0, nameLen = 0, type = 0;
        if (!r.readI32(nDims) || !r.readI32(nameLen) || !r.readI32(type)) {
            return truncated("a tensor header (tensor #" + std::to_string(out.tensors.size()) + ")");
        }
        const std::string at = " at byte " + std::to_string(start);
        if (nDims < 1 || nDims > 4) return makeError(where + ": tensor header" + at + " has " + std::to_string(nDims) + " dimensions (expected 1..4)");
        if (nameLen < 1 || nameLen > 512) return makeError(where + ": tensor header" + at + " has a name of " + std::to_string(nameLen) + " bytes");
        int32_t ne[4] = {1, 1, 1, 1};
        for (int i = 0; i < nDims; ++i) {
            if (!r.readI32(ne[i])) return truncated("a tensor header");
        }
        const std::byte* namePtr = r.take(size_t(nameLen));
        if (!namePtr) return truncated("a tensor name");
        TensorView view;
        view.name.assign(reinterpret_cast<const char*>(namePtr), size_t(nameLen));
        const std::string what = where + ": tensor '" + view.name + "'";
        auto dtype = dtypeFromGgmlType(type);
        if (!dtype) return makeError(what + " has unknown ggml type " + std::to_string(type) + " (supported: f32, f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0)");
        view.dtype = *dtype;
        int64_t elements = 1;
        for (int i = nDims - 1; i >= 0; --i) {
            if (ne[i] < 1) return makeError(what + " has dimension " + std::to_string(ne[i]));
            view.shape.push_back(ne[i]);
            elements *= ne[i];
            if (elements > kMaxTensorElements) return makeError(what + " has absurd dimensions");
        }
        if (dtypeBlockElements(view.dtype) > 1 && ne[0] % dtypeBlockElements(view.dtype) != 0) {
            return makeError(what + ": " + std::string(dtypeName(view.dtype)) + " needs rows that are a multiple of " +
                             std::to_string(dtypeBlockElements(view.dtype)) + " elements, found " + view.shapeString());
        }
        const int64_t bytes = dtypeBytes(view.dtype, elements);
        view.data = r.take(size_t(bytes));
        if (!view.data) {
            return makeError(where + ": truncated ggml file: tensor '" + view.name + "' " + view.shapeString() + " " +
                             std::string(dtypeName(view.dtype)) + " needs " + std::to_string(bytes) + " bytes, only " +
                             std::to_string(r.remaining()) + " remain");
        }
        view.bytes = size_t(bytes);
        if (!seen.insert(view.name).second) return makeError(what + " appears twice");
        out.tensors.push_back(std::move(view));
    }
    return out;
}

Result<std::unique_ptr<GgmlWriter>> GgmlWriter::create(const std::filesystem::path& path, const WhisperConfig& c,
                                                       int32_t ftype, const std::vector<float>& melFilters, int32_t nMel,
                                                       int32_t nFft, const std::vector<std::string>& vocabulary) {
    std::unique_ptr<GgmlWriter> w(new GgmlWriter);
    w->m_path = path;
    w->m_file = std::fopen(path.c_str(), "wb");
    if (!w->m_file) return makeError("cannot create " + path.string() + ": " + std::strerror(errno));
    const int32_t header[12] = {int32_t(kGgmlMagic), c.nVocab,     c.nAudioCtx, c.nAudioState, c.nAudioHead, c.nAudioLayer,
                                c.nTextCtx,          c.nTextState, c.nTextHead, c.nTextLayer,  c.nMels,      ftype};
    if (auto ok = w->put(header, sizeof header); !ok) return ok.error();
    const int32_t melHeader[2] = {nMel, nFft};
    if (auto ok = w->put(melHeader, sizeof melHeader); !ok) return ok.error();
    if (auto ok = w->put(melFilters.data(), melFilters.size() * 4); !ok) return ok.error();
    const int32_t n = int32_t(vocabulary.size());
    if (auto ok = w->put(&n, 4); !ok) return ok.error();
    for (const auto& token : vocabulary) {
        const uint32_t len = uint32_t(token.size());
        if (auto ok = w->put(&len, 4); !ok) return ok.error();
        if (auto ok = w->put(token.data(), token.size()); !ok) return ok.error();
    }
    return w;
}

GgmlWriter::~GgmlWriter() {
    if (m_file) std::fclose(m_file);
}

Result<void> GgmlWriter::put(const void* data, size_t bytes) {
    if (bytes && std::fwrite(data, 1, bytes, m_file) != bytes) {
        return makeError("cannot write " + m_path.string() + ": " + std::strerror(errno));
    }
    return {};
}

Result<void> GgmlWriter::writeTensor(const std::string& name, DType dtype, const std::vector<int64_t>& shape,
                                     const void* data, size_t bytes) {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    if (int64_t(bytes) != dtypeBytes(dtype, n)) return makeError("ggml writer: wrong byte count for tensor " + name);
    std::vector<int32_t> header = {int32_t(shape.size()), int32_t(name.size()), ggmlTypeOf(dtype)};
    for (size_t i = shape.size(); i-- > 0;) header.push_back(int32_t(shape[i]));  // ne[0] innermost
    if (auto ok = put(header.data(), header.size() * 4); !ok) return ok;
    if (auto ok = put(name.data(), name.size()); !ok) return ok;
    return put(data, bytes);
}

Result<void> GgmlWriter::finish() {
    int rc = std::fclose(m_file);
    m_file = nullptr;
    if (rc != 0) return makeError("cannot write " + m_path.string() + ": " + std::strerror(errno));
    return {};
}

} // namespace hearsay
