// A strict reader for 16 kHz mono 16-bit PCM WAV (see pcm_wav.h).
#include "core/frontend/pcm_wav.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

namespace hearsay {
namespace {

uint32_t le32(const unsigned char* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
uint16_t le16(const unsigned char* p) { return uint16_t(p[0] | p[1] << 8); }

} // namespace

Result<std::vector<float>> readPcm16Wav(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError("cannot open '" + path.string() + "'");
    const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto bad = [&](const std::string& what) { return makeError("'" + path.string() + "' is not a usable WAV file: " + what); };
    if (bytes.size() < 12 || std::memcmp(bytes.data(), "RIFF", 4) != 0 || std::memcmp(bytes.data() + 8, "WAVE", 4) != 0) {
        return bad("no RIFF/WAVE header");
    }
    bool haveFormat = false;
    size_t offset = 12;
    while (offset + 8 <= bytes.size()) {
        const unsigned char* chunk = bytes.data() + offset;
        const size_t size = le32(chunk + 4);
        if (size > bytes.size() - offset - 8) return bad("chunk '" + std::string(chunk, chunk + 4) + "' is truncated");
        if (std::memcmp(chunk, "fmt ", 4) == 0) {
            if (size < 16) return bad("fmt chunk too short");
            const uint16_t format = le16(chunk + 8), channels = le16(chunk + 10), bits = le16(chunk + 22);
            const uint32_t rate = le32(chunk + 12);
            if (format != 1 || channels != 1 || bits != 16 || rate != 16000) {
                return bad("format " + std::to_string(format) + ", " + std::to_string(channels) + " channel(s), " +
                           std::to_string(bits) + " bits, " + std::to_string(rate) + " Hz; expected PCM (1), mono, 16 bits, 16000 Hz");
            }
            haveFormat = true;
        } else if (std::memcmp(chunk, "data", 4) == 0) {
            if (!haveFormat) return bad("data chunk before the fmt chunk");
            std::vector<float> samples(size / 2);
            for (size_t i = 0; i < samples.size(); ++i) {
                samples[i] = float(int16_t(le16(chunk + 8 + 2 * i))) / 32768.0f;
            }
            return samples;
        }
        offset += 8 + size + (size & 1);
    }
    return bad(haveFormat ? "no data chunk" : "no fmt chunk");
}

} // namespace hearsay
