// Minimal .npy reader/writer (see npy.h).
#include "core/util/npy.h"

#include "core/util/half.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace hearsay {

Result<NpyArray> readNpy(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError("cannot open " + path.string());
    char magic[8];
    if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
        return makeError(path.string() + " is not a .npy file");
    }
    uint32_t headerLen = 0;
    if (magic[6] == 1) {
        uint16_t h = 0;
        in.read(reinterpret_cast<char*>(&h), 2);
        headerLen = h;
    } else {
        in.read(reinterpret_cast<char*>(&headerLen), 4);
    }
    if (!in || headerLen > 65536) return makeError(path.string() + ": bad .npy header");
    std::string header(headerLen, '\0');
    in.read(header.data(), headerLen);
    auto field = [&](const std::string& key) -> std::string {
        auto p = header.find("'" + key + "'");
        if (p == std::string::npos) return {};
        p = header.find(':', p);
        return p == std::string::npos ? std::string() : header.substr(p + 1);
    };
    std::string descr = field("descr");
    auto q1 = descr.find('\'');
    auto q2 = descr.find('\'', q1 + 1);
    if (q1 == std::string::npos || q2 == std::string::npos) return makeError(path.string() + ": no dtype");
    descr = descr.substr(q1 + 1, q2 - q1 - 1);
    if (field("fortran_order").find("True") < field("fortran_order").find(',')) {
        return makeError(path.string() + ": Fortran order is not supported");
    }
    std::string shapeText = field("shape");
    NpyArray array;
    auto open = shapeText.find('(');
    auto close = shapeText.find(')');
    if (open == std::string::npos || close == std::string::npos) return makeError(path.string() + ": no shape");
    std::stringstream ss(shapeText.substr(open + 1, close - open - 1));
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.find_first_of("0123456789") == std::string::npos) continue;
        array.shape.push_back(std::stoll(item));
    }
    int64_t n = array.elements();
    if (n < 0 || n > (int64_t(1) << 32)) return makeError(path.string() + ": absurd shape");
    auto readAll = [&](void* dst, size_t bytes) { return bool(in.read(static_cast<char*>(dst), std::streamsize(bytes))); };
    if (descr == "<f4") {
        array.f32.resize(size_t(n));
        if (!readAll(array.f32.data(), size_t(n) * 4)) return makeError(path.string() + ": truncated");
    } else if (descr == "<f8") {
        std::vector<double> d(static_cast<size_t>(n));
        if (!readAll(d.data(), size_t(n) * 8)) return makeError(path.string() + ": truncated");
        array.f32.assign(d.begin(), d.end());
    } else if (descr == "<f2") {
        std::vector<uint16_t> h(static_cast<size_t>(n));
        if (!readAll(h.data(), size_t(n) * 2)) return makeError(path.string() + ": truncated");
        array.f32.resize(size_t(n));
        for (size_t i = 0; i < h.size(); ++i) array.f32[i] = halfToFloat(h[i]);
    } else if (descr == "<i4") {
        std::vector<int32_t> v(static_cast<size_t>(n));
        if (!readAll(v.data(), size_t(n) * 4)) return makeError(path.string() + ": truncated");
        array.i64.assign(v.begin(), v.end());
    } else if (descr == "<i8") {
        array.i64.resize(size_t(n));
        if (!readAll(array.i64.data(), size_t(n) * 8)) return makeError(path.string() + ": truncated");
    } else {
        return makeError(path.string() + ": unsupported dtype " + descr);
    }
    return array;
}

Result<void> writeNpy(const std::filesystem::path& path, const std::vector<int64_t>& shape, const float* data) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
    int64_t n = 1;
    for (auto d : shape) {
        header += std::to_string(d) + ", ";
        n *= d;
    }
    header += "), }";
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    if (!out) return makeError("cannot write " + path.string());
    out.write("\x93NUMPY\x01\x00", 8);
    uint16_t len = uint16_t(header.size());
    out.write(reinterpret_cast<const char*>(&len), 2);
    out.write(header.data(), std::streamsize(header.size()));
    out.write(reinterpret_cast<const char*>(data), std::streamsize(n * 4));
    if (!out) return makeError("cannot write " + path.string());
    return {};
}

} // namespace hearsay
