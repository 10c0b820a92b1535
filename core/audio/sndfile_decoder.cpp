// libsndfile reading, block by block, with the truncation checks libsndfile itself does not
// report (it quietly shortens a WAV whose data chunk runs past the end of the file).
#include "core/audio/sndfile_decoder.h"

#include "core/audio/audio_limits.h"

#include <sndfile.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

namespace hearsay {
namespace {

struct SndfileCloser {
    void operator()(SNDFILE* file) const { sf_close(file); }
};

std::string formatName(int format) {
    std::string name;
    for (int part : {format & SF_FORMAT_TYPEMASK, format & SF_FORMAT_SUBMASK}) {
        SF_FORMAT_INFO info{};
        info.format = part;
        if (sf_command(nullptr, SFC_GET_FORMAT_INFO, &info, sizeof(info)) == 0 && info.name) {
            if (!name.empty()) name += ", ";
            name += info.name;
        }
    }
    return name.empty() ? "unknown format" : name;
}

uint32_t readLe32(const unsigned char* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// A RIFF/WAVE file whose data chunk declares more bytes than the file holds was cut short
// (an interrupted copy or download). 0 and 0xFFFFFFFF mean "length not written" (a recorder
// that never finalised the header) and are accepted, as libsndfile does.
Result<void> checkWavDataChunk(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    unsigned char header[12];
    if (!in.read(reinterpret_cast<char*>(header), 12)) return {};
    if (std::memcmp(header, "RIFF", 4) != 0 || std::memcmp(header + 8, "WAVE", 4) != 0) return {};
    std::error_code ec;
    const uint64_t fileSize = std::filesystem::file_size(path, ec);
    if (ec) return {};
    uint64_t offset = 12;
    unsigned char chunk[8];
    while (in.seekg(std::streamoff(offset)) && in.read(reinterpret_cast<char*>(chunk), 8)) {
        const uint32_t size = readLe32(chunk + 4);
        if (std::memcmp(chunk, "data", 4) == 0) {
            const uint64_t available = fileSize - (offset + 8);
            if (size != 0 && size != 0xFFFFFFFFu && size > available) {
                return makeError("the file is truncated: its data chunk declares " + std::to_string(size) +
                                 " bytes of audio but only " + std::to_string(available) + " follow");
            }
            return {};
        }
        offset += 8 + uint64_t(size) + (size & 1u);
    }
    return {};
}

class SndfileReader final : public PcmReader {
public:
    SndfileReader(SNDFILE* file, const SF_INFO& info)
        : m_file(file), m_info(info), m_format(formatName(info.format)) {}

    int sampleRate() const override { return m_info.samplerate; }
    int channels() const override { return m_info.channels; }
    const std::string& format() const override { return m_format; }

    Result<size_t> next(std::vector<float>& block) override {
        constexpr sf_count_t kBlockFrames = 8192;
        block.resize(size_t(kBlockFrames) * size_t(m_info.channels));
        const sf_count_t got = sf_readf_float(m_file.get(), block.data(), kBlockFrames);
        if (got > 0) {
            block.resize(size_t(got) * size_t(m_info.channels));
            m_total += got;
            return size_t(got);
        }
        block.clear();
        if (sf_error(m_file.get()) != SF_ERR_NO_ERROR) {
            return makeError(std::string("read error after ") + std::to_string(m_total) + " frames: " +
                             sf_strerror(m_file.get()));
        }
        // A frame count from the header (FLAC's STREAMINFO, ...) that the data does not reach
        // means the file was cut short. MP3's count is an estimate, so it is not held to it.
        const int major = m_info.format & SF_FORMAT_TYPEMASK;
        if (major != SF_FORMAT_MPEG && m_info.frames > 0 && m_info.frames != SF_COUNT_MAX && m_total < m_info.frames) {
            return makeError("the file is truncated: its header declares " + std::to_string(m_info.frames) +
                             " frames but only " + std::to_string(m_total) + " could be decoded");
        }
        return size_t(0);
    }

private:
    std::unique_ptr<SNDFILE, SndfileCloser> m_file;
    SF_INFO m_info;
    std::string m_format;
    sf_count_t m_total = 0;  // frames read so far
};

} // namespace

Result<SndfileOpened> openWithSndfile(const std::filesystem::path& path) {
    SndfileOpened opened;
    SF_INFO info{};
    std::unique_ptr<SNDFILE, SndfileCloser> file(sf_open(path.c_str(), SFM_READ, &info));
    if (!file) {
        opened.whyNot = sf_strerror(nullptr);
        while (!opened.whyNot.empty() && (opened.whyNot.back() == '.' || opened.whyNot.back() == '\n')) opened.whyNot.pop_back();
        return opened;
    }
    if (auto shape = checkAudioShape(info.samplerate, info.channels); !shape) {
        return makeError("invalid header: " + shape.message());
    }
    const int major = info.format & SF_FORMAT_TYPEMASK;
    if (major == SF_FORMAT_WAV || major == SF_FORMAT_WAVEX) {
        if (auto check = checkWavDataChunk(path); !check) return check.error();
    }
    opened.reader = std::make_unique<SndfileReader>(file.release(), info);
    return opened;
}

} // namespace hearsay
