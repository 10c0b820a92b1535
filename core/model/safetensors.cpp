// safetensors reading (validated, in place) and streaming writing.
#include "core/model/safetensors.h"

#include "core/util/json_text.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace hearsay {
namespace {

constexpr uint64_t kMaxHeaderBytes = uint64_t(100) << 20;  // as the reference library
constexpr int64_t kMaxDim = int64_t(1) << 32;

const char* safetensorsDtype(DType t) {
    switch (t) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    default: return nullptr;
    }
}

bool parseDtype(const std::string& s, DType& out) {
    if (s == "F32") out = DType::F32;
    else if (s == "F16") out = DType::F16;
    else if (s == "BF16") out = DType::BF16;
    else return false;
    return true;
}

// A JSON number that is an exact non-negative integer no larger than `max`.
bool nonNegativeInt(const nlohmann::json& j, int64_t max, int64_t& out) {
    if (j.is_number_unsigned()) {
        if (j.get<uint64_t>() > uint64_t(max)) return false;
    } else if (j.is_number_integer()) {
        if (j.get<int64_t>() < 0 || j.get<int64_t>() > max) return false;
    } else if (j.is_number_float()) {
        const double d = j.get<double>();
        if (!(d >= 0.0) || d > double(max) || d != std::floor(d)) return false;
    } else {
        return false;
    }
    out = j.get<int64_t>();
    return true;
}

// The member `key` of an object, or null when it has none.
const nlohmann::json& member(const nlohmann::json& object, const char* key) {
    static const nlohmann::json none;
    auto it = object.find(key);
    return it == object.end() ? none : *it;
}

} // namespace

Result<SafetensorsFile> openSafetensors(const std::filesystem::path& path) {
    auto mapped = MappedFile::open(path);
    if (!mapped) return mapped.error();
    auto out = readSafetensors(mapped.value()->bytes(), path.string());
    if (out) out->file = mapped.value();
    return out;
}

Result<SafetensorsFile> readSafetensors(std::span<const std::byte> bytes, const std::string& where) {
    SafetensorsFile out;
    const size_t size = bytes.size();
    if (size < 8) return makeError(where + ": not a safetensors file (" + std::to_string(size) + " bytes, too short for the header length)");
    uint64_t headerBytes = 0;
    std::memcpy(&headerBytes, bytes.data(), 8);
    if (headerBytes > size - 8) {
        return makeError(where + ": truncated or corrupt safetensors file: header length " + std::to_string(headerBytes) +
                         " exceeds the " + std::to_string(size - 8) + " bytes after it");
    }
    if (headerBytes > kMaxHeaderBytes) {
        return makeError(where + ": safetensors header length " + std::to_string(headerBytes) + " is larger than the 100 MiB limit");
    }
    std::string_view headerText(reinterpret_cast<const char*>(bytes.data() + 8), size_t(headerBytes));
    auto header = parseJson(headerText);
    if (!header) return makeError(where + ": malformed safetensors header: " + header.message());
    if (!header->is_object()) return makeError(where + ": malformed safetensors header: not a JSON object");

    const std::byte* dataBase = bytes.data() + 8 + headerBytes;
    const uint64_t dataBytes = size - 8 - headerBytes;
    struct Span {
        uint64_t begin, end;
        const std::string* name;
    };
    std::vector<Span> spans;
    for (const auto& [name, entry] : header->items()) {
        if (name == "__metadata__") {
            if (!entry.is_object()) continue;
            for (const auto& [k, v] : entry.items()) {
                if (v.is_string()) out.metadata[k] = v.get<std::string>();
            }
            continue;
        }
        const std::string what = where + ": tensor '" + name + "'";
        if (!entry.is_object()) return makeError(what + ": header entry is not an object");
        const nlohmann::json& dtype = member(entry, "dtype");
        if (!dtype.is_string()) return makeError(what + ": header entry has no \"dtype\" string");
        TensorView view;
        view.name = name;
        if (!parseDtype(dtype.get<std::string>(), view.dtype)) {
            return makeError(what + " has unsupported dtype '" + dtype.get<std::string>() + "' (supported: F32, F16, BF16)");
        }
        const nlohmann::json& shape = member(entry, "shape");
        if (!shape.is_array() || shape.size() > 8) return makeError(what + ": \"shape\" is not an array of at most 8 dimensions");
        int64_t elements = 1;
        for (const nlohmann::json& d : shape) {
            int64_t v = 0;
            if (!nonNegativeInt(d, kMaxDim, v)) return makeError(what + ": shape has an invalid dimension " + d.dump());
            view.shape.push_back(v);
            elements = v == 0 ? 0 : (elements > kMaxTensorElements / v ? kMaxTensorElements + 1 : elements * v);
            if (elements > kMaxTensorElements) return makeError(what + ": shape " + view.shapeString() + " is absurdly large");
        }
        const nlohmann::json& offsets = member(entry, "data_offsets");
        int64_t begin = 0, end = 0;
        if (!offsets.is_array() || offsets.size() != 2 ||
            !nonNegativeInt(offsets[0], INT64_MAX / 2, begin) ||
            !nonNegativeInt(offsets[1], INT64_MAX / 2, end)) {
            return makeError(what + ": \"data_offsets\" must be two non-negative integers, found " + offsets.dump());
        }
        if (end < begin) {
            return makeError(what + ": data offsets out of order (begin " + std::to_string(begin) + " > end " + std::to_string(end) + ")");
        }
        if (uint64_t(end) > dataBytes) {
            return makeError(what + ": data offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                             ") lie beyond the end of the file (data section holds " + std::to_string(dataBytes) +
                             " bytes): the file is truncated or the header is corrupt");
        }
        const int64_t expected = dtypeBytes(view.dtype, elements);
        if (end - begin != expected) {
            return makeError(what + ": data offsets span " + std::to_string(end - begin) + " bytes, but " +
                             std::string(dtypeName(view.dtype)) + " " + view.shapeString() + " needs " + std::to_string(expected));
        }
        view.data = dataBase + begin;
        view.bytes = size_t(end - begin);
        auto [it, inserted] = out.tensors.emplace(name, std::move(view));
        spans.push_back({uint64_t(begin), uint64_t(end), &it->first});
    }
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    size_t widest = 0;  // the span reaching furthest so far
    for (size_t i = 1; i < spans.size(); ++i) {
        if (spans[i].end > spans[i].begin && spans[i].begin < spans[widest].end) {
            return makeError(where + ": tensors '" + *spans[widest].name + "' and '" + *spans[i].name +
                             "' overlap in the data section (corrupt header)");
        }
        if (spans[i].end > spans[widest].end) widest = i;
    }
    return out;
}

Result<std::unique_ptr<SafetensorsWriter>> SafetensorsWriter::create(const std::filesystem::path& path,
                                                                     const std::vector<Entry>& entries,
                                                                     const std::map<std::string, std::string>& metadata) {
    nlohmann::json header = nlohmann::json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    int64_t offset = 0;
    for (const auto& e : entries) {
        const char* dtype = safetensorsDtype(e.dtype);
        if (!dtype) return makeError("safetensors cannot store dtype " + std::string(dtypeName(e.dtype)) + " (tensor " + e.name + ")");
        int64_t n = 1;
        for (auto d : e.shape) n *= d;
        const int64_t bytes = dtypeBytes(e.dtype, n);
        header[e.name] = {{"dtype", dtype}, {"shape", e.shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string text = dumpJson(header);
    while ((8 + text.size()) % 8 != 0) text += ' ';  // align the data section to 8 bytes

    std::unique_ptr<SafetensorsWriter> w(new SafetensorsWriter);
    w->m_path = path;
    w->m_entries = entries;
    w->m_file = std::fopen(path.c_str(), "wb");
    if (!w->m_file) return makeError("cannot create " + path.string() + ": " + std::strerror(errno));
    uint64_t length = text.size();
    if (std::fwrite(&length, 8, 1, w->m_file) != 1 || std::fwrite(text.data(), 1, text.size(), w->m_file) != text.size()) {
        return makeError("cannot write " + path.string() + ": " + std::strerror(errno));
    }
    return w;
}

SafetensorsWriter::~SafetensorsWriter() {
    if (m_file) std::fclose(m_file);
}

Result<void> SafetensorsWriter::write(const std::string& name, const void* data, size_t bytes) {
    if (m_next >= m_entries.size() || m_entries[m_next].name != name) {
        return makeError("safetensors writer: tensor " + name + " written out of the declared order");
    }
    const auto& e = m_entries[m_next];
    int64_t n = 1;
    for (auto d : e.shape) n *= d;
    if (int64_t(bytes) != dtypeBytes(e.dtype, n)) return makeError("safetensors writer: wrong byte count for tensor " + name);
    if (std::fwrite(data, 1, bytes, m_file) != bytes) return makeError("cannot write " + m_path.string() + ": " + std::strerror(errno));
    ++m_next;
    return {};
}

Result<void> SafetensorsWriter::finish() {
    if (m_next != m_entries.size()) return makeError("safetensors writer: " + m_path.string() + " is missing tensors");
    int rc = std::fclose(m_file);
    m_file = nullptr;
    if (rc != 0) return makeError("cannot write " + m_path.string() + ": " + std::strerror(errno));
    return {};
}

} // namespace hearsay
