// CTranslate2 model.bin: reading in place with every length checked, and writing (see the header).
#include "core/model/ctranslate2_file.h"

#include <cerrno>
#include <cstring>
#include <limits>
#include <set>

namespace hearsay {
namespace {

// A cursor over the mapped bytes; every read checks the remaining length.
class Reader {
public:
    Reader(const std::byte* data, size_t size, std::string file) : m_data(data), m_size(size), m_file(std::move(file)) {}

    size_t offset() const { return m_offset; }
    size_t remaining() const { return m_size - m_offset; }

    template <class T>
    Result<T> scalar(const char* what) {
        if (remaining() < sizeof(T)) return truncated(what, sizeof(T));
        T value;
        std::memcpy(&value, m_data + m_offset, sizeof(T));
        m_offset += sizeof(T);
        return value;
    }

    Result<std::string> string(const char* what) {
        auto length = scalar<uint16_t>(what);
        if (!length) return length.error();
        if (length.value() == 0) return fail(std::string(what) + " has length 0 (a string holds at least its NUL)");
        if (remaining() < length.value()) return truncated(what, length.value());
        const char* text = reinterpret_cast<const char*>(m_data + m_offset);
        if (text[length.value() - 1] != '\0') return fail(std::string(what) + " is not NUL-terminated");
        std::string s(text, length.value() - 1);
        if (s.find('\0') != std::string::npos) return fail(std::string(what) + " holds a NUL byte");
        m_offset += length.value();
        return s;
    }

    Result<const std::byte*> bytes(size_t count, const std::string& what) {
        if (remaining() < count) return truncated(what.c_str(), count);
        const std::byte* p = m_data + m_offset;
        m_offset += count;
        return p;
    }

    Error fail(const std::string& message) const {
        return makeError(m_file + ": " + message + " (at byte " + std::to_string(m_offset) + ")");
    }

private:
    Error truncated(const char* what, size_t need) const {
        return makeError(m_file + ": truncated: " + what + " needs " + std::to_string(need) + " bytes at byte " +
                         std::to_string(m_offset) + ", but the file ends after " + std::to_string(remaining()));
    }

    const std::byte* m_data;
    size_t m_size;
    size_t m_offset = 0;
    std::string m_file;
};

std::optional<Ct2Type> typeFromId(uint8_t id) {
    if (id > uint8_t(Ct2Type::BF16)) return std::nullopt;
    return Ct2Type(id);
}

std::optional<Ct2Type> typeFromItemSize(uint8_t size) {
    switch (size) {
    case 4: return Ct2Type::F32;
    case 2: return Ct2Type::I16;
    case 1: return Ct2Type::I8;
    default: return std::nullopt;
    }
}

constexpr int kMaxRank = 8;

} // namespace

std::string_view ct2TypeName(Ct2Type type) {
    switch (type) {
    case Ct2Type::F32: return "float32";
    case Ct2Type::I8: return "int8";
    case Ct2Type::I16: return "int16";
    case Ct2Type::I32: return "int32";
    case Ct2Type::F16: return "float16";
    case Ct2Type::BF16: return "bfloat16";
    }
    return "?";
}

size_t ct2TypeBytes(Ct2Type type) {
    switch (type) {
    case Ct2Type::F32:
    case Ct2Type::I32: return 4;
    case Ct2Type::I16:
    case Ct2Type::F16:
    case Ct2Type::BF16: return 2;
    case Ct2Type::I8: return 1;
    }
    return 0;
}

int64_t Ct2Variable::elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

std::optional<int64_t> Ct2Variable::integerScalar() const {
    if (!shape.empty()) return std::nullopt;
    switch (type) {
    case Ct2Type::I8: {
        int8_t v;
        std::memcpy(&v, data, 1);
        return v;
    }
    case Ct2Type::I16: {
        int16_t v;
        std::memcpy(&v, data, 2);
        return v;
    }
    case Ct2Type::I32: {
        int32_t v;
        std::memcpy(&v, data, 4);
        return v;
    }
    default: return std::nullopt;
    }
}

const Ct2Variable* CTranslate2File::find(const std::string& name) const {
    auto it = variables.find(name);
    if (it != variables.end()) return &it->second;
    auto alias = aliases.find(name);
    if (alias == aliases.end()) return nullptr;
    it = variables.find(alias->second);
    return it == variables.end() ? nullptr : &it->second;
}

Result<CTranslate2File> openCTranslate2(const std::filesystem::path& path) {
    auto mapped = MappedFile::open(path);
    if (!mapped) return mapped.error();
    CTranslate2File out;
    out.file = mapped.value();
    Reader in(out.file->data(), out.file->size(), path.string());

    auto version = in.scalar<uint32_t>("the binary version");
    if (!version) return version.error();
    out.binaryVersion = version.value();
    if (out.binaryVersion == 0 || out.binaryVersion > kCTranslate2MaxBinaryVersion) {
        return makeError(path.string() + ": binary version " + std::to_string(out.binaryVersion) +
                         " is not a CTranslate2 model.bin Hearsay reads (versions 1 to " +
                         std::to_string(kCTranslate2MaxBinaryVersion) + ")");
    }
    if (out.binaryVersion >= 2) {
        auto spec = in.string("the model spec name");
        if (!spec) return spec.error();
        out.spec = spec.value();
        auto revision = in.scalar<uint32_t>("the spec revision");
        if (!revision) return revision.error();
        out.specRevision = revision.value();
    }

    auto count = in.scalar<uint32_t>("the variable count");
    if (!count) return count.error();
    for (uint32_t i = 0; i < count.value(); ++i) {
        auto name = in.string("a variable name");
        if (!name) return name.error();
        Ct2Variable v;
        v.name = name.value();
        auto rank = in.scalar<uint8_t>("the rank");
        if (!rank) return rank.error();
        if (rank.value() > kMaxRank) return in.fail("variable '" + v.name + "' has rank " + std::to_string(rank.value()));
        uint64_t elements = 1;
        for (int d = 0; d < rank.value(); ++d) {
            auto dim = in.scalar<uint32_t>("a dimension");
            if (!dim) return dim.error();
            v.shape.push_back(int64_t(dim.value()));
            // Saturates far above any file size (the payload check below fails then): no overflow.
            constexpr uint64_t kLimit = uint64_t(1) << 48;
            elements = dim.value() == 0 ? 0 : (elements > kLimit / dim.value() ? kLimit : elements * dim.value());
        }
        uint64_t payload = 0;
        if (out.binaryVersion >= 4) {
            auto typeId = in.scalar<uint8_t>("the dtype");
            if (!typeId) return typeId.error();
            auto type = typeFromId(typeId.value());
            if (!type) return in.fail("variable '" + v.name + "' has unknown dtype id " + std::to_string(typeId.value()));
            v.type = *type;
            auto bytes = in.scalar<uint32_t>("the payload size");
            if (!bytes) return bytes.error();
            payload = bytes.value();
        } else {
            auto itemSize = in.scalar<uint8_t>("the item size");
            if (!itemSize) return itemSize.error();
            auto type = typeFromItemSize(itemSize.value());
            if (!type) return in.fail("variable '" + v.name + "' has unknown item size " + std::to_string(itemSize.value()));
            v.type = *type;
            auto items = in.scalar<uint32_t>("the element count");
            if (!items) return items.error();
            payload = uint64_t(items.value()) * itemSize.value();
        }
        if (payload != elements * ct2TypeBytes(v.type)) {
            return in.fail("variable '" + v.name + "' declares " + std::to_string(payload) + " bytes, but " +
                           std::to_string(elements) + " " + std::string(ct2TypeName(v.type)) + " elements need " +
                           std::to_string(elements * ct2TypeBytes(v.type)));
        }
        auto data = in.bytes(size_t(payload), "the data of '" + v.name + "'");
        if (!data) return data.error();
        v.data = data.value();
        v.bytes = size_t(payload);
        if (out.variables.count(v.name)) return in.fail("variable '" + v.name + "' appears twice");
        out.variables.emplace(v.name, std::move(v));
    }

    if (out.binaryVersion >= 3) {
        auto aliasCount = in.scalar<uint32_t>("the alias count");
        if (!aliasCount) return aliasCount.error();
        for (uint32_t i = 0; i < aliasCount.value(); ++i) {
            auto alias = in.string("an alias");
            if (!alias) return alias.error();
            auto target = in.string("an alias target");
            if (!target) return target.error();
            if (!out.variables.count(target.value())) {
                return in.fail("alias '" + alias.value() + "' names '" + target.value() + "', which is not a variable");
            }
            if (out.variables.count(alias.value()) || out.aliases.count(alias.value())) {
                return in.fail("alias '" + alias.value() + "' is also a variable or another alias");
            }
            out.aliases.emplace(alias.value(), target.value());
        }
    }
    if (in.remaining() != 0) {
        return in.fail(std::to_string(in.remaining()) + " bytes follow the last " +
                       std::string(out.binaryVersion >= 3 ? "alias" : "variable") + ", where the file should end");
    }
    return out;
}

Result<std::unique_ptr<Ct2Writer>> Ct2Writer::create(const std::filesystem::path& path, const std::string& spec,
                                                     uint32_t specRevision, uint32_t variableCount) {
    std::unique_ptr<Ct2Writer> w(new Ct2Writer);
    w->m_path = path;
    w->m_expected = variableCount;
    w->m_file = std::fopen(path.c_str(), "wb");
    if (!w->m_file) return makeError("cannot create " + path.string() + ": " + std::strerror(errno));
    const uint32_t version = kCTranslate2MaxBinaryVersion;
    if (auto ok = w->put(&version, 4); !ok) return ok.error();
    if (auto ok = w->putString(spec); !ok) return ok.error();
    if (auto ok = w->put(&specRevision, 4); !ok) return ok.error();
    if (auto ok = w->put(&variableCount, 4); !ok) return ok.error();
    return w;
}

Ct2Writer::~Ct2Writer() {
    if (m_file) std::fclose(m_file);
}

Result<void> Ct2Writer::put(const void* data, size_t bytes) {
    if (bytes > 0 && std::fwrite(data, 1, bytes, m_file) != bytes) {
        return makeError("cannot write " + m_path.string() + ": " + std::strerror(errno));
    }
    return {};
}

Result<void> Ct2Writer::putString(const std::string& s) {
    if (s.size() + 1 > std::numeric_limits<uint16_t>::max()) return makeError("name too long for a model.bin: " + s);
    const uint16_t length = uint16_t(s.size() + 1);
    if (auto ok = put(&length, 2); !ok) return ok;
    return put(s.c_str(), s.size() + 1);
}

Result<void> Ct2Writer::write(const std::string& name, Ct2Type type, const std::vector<int64_t>& shape, const void* data,
                              size_t bytes) {
    int64_t elements = 1;
    for (int64_t d : shape) elements *= d;
    if (bytes != size_t(elements) * ct2TypeBytes(type) || bytes > std::numeric_limits<uint32_t>::max() || shape.size() > kMaxRank) {
        return makeError("variable '" + name + "' cannot be written: " + std::to_string(bytes) + " bytes for its shape and type");
    }
    if (m_written == m_expected) return makeError("more variables than declared for " + m_path.string());
    if (auto ok = putString(name); !ok) return ok;
    const uint8_t rank = uint8_t(shape.size());
    if (auto ok = put(&rank, 1); !ok) return ok;
    for (int64_t d : shape) {
        const uint32_t dim = uint32_t(d);
        if (auto ok = put(&dim, 4); !ok) return ok;
    }
    const uint8_t typeId = uint8_t(type);
    const uint32_t size = uint32_t(bytes);
    if (auto ok = put(&typeId, 1); !ok) return ok;
    if (auto ok = put(&size, 4); !ok) return ok;
    if (auto ok = put(data, bytes); !ok) return ok;
    ++m_written;
    return {};
}

Result<void> Ct2Writer::finish(const std::vector<std::pair<std::string, std::string>>& aliases) {
    if (m_written != m_expected) {
        return makeError(m_path.string() + ": " + std::to_string(m_written) + " variables written, " + std::to_string(m_expected) + " declared");
    }
    const uint32_t count = uint32_t(aliases.size());
    if (auto ok = put(&count, 4); !ok) return ok;
    for (const auto& [alias, target] : aliases) {
        if (auto ok = putString(alias); !ok) return ok;
        if (auto ok = putString(target); !ok) return ok;
    }
    std::FILE* f = m_file;
    m_file = nullptr;
    if (std::fclose(f) != 0) return makeError("cannot write " + m_path.string() + ": " + std::strerror(errno));
    return {};
}

} // namespace hearsay
