// AudioBlockDecoder: picks the decoder (libsndfile, else FFmpeg), then mixes and resamples
// each decoded block to 16 kHz mono as it comes.
#include "core/audio/audio_block_decoder.h"

#include "core/audio/audio_file.h"
#include "core/audio/downmix.h"
#include "core/audio/container_decoder.h"
#include "core/audio/sndfile_decoder.h"

#include <system_error>
#include <utility>

namespace hearsay {

AudioBlockDecoder::AudioBlockDecoder(std::filesystem::path path, Resampler::Quality quality)
    : m_path(std::move(path)), m_quality(quality) {}

AudioBlockDecoder::AudioBlockDecoder(AudioBlockDecoder&&) noexcept = default;
AudioBlockDecoder& AudioBlockDecoder::operator=(AudioBlockDecoder&&) noexcept = default;
AudioBlockDecoder::~AudioBlockDecoder() = default;

Error AudioBlockDecoder::fileError(const std::string& reason) const {
    return makeError("cannot decode audio file '" + m_path.string() + "': " + reason);
}

Result<AudioBlockDecoder> AudioBlockDecoder::open(const std::filesystem::path& path, Resampler::Quality quality) {
    AudioBlockDecoder decoder(path, quality);
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) return decoder.fileError("no such file");
    if (std::filesystem::is_directory(status)) return decoder.fileError("it is a directory");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return decoder.fileError(ec.message());
    if (size == 0) return decoder.fileError("the file is empty (0 bytes)");
    if (auto opened = decoder.openReader(false); !opened) return opened.error();
    return decoder;
}

Result<void> AudioBlockDecoder::openReader(bool ffmpegOnly) {
    m_reader.reset();
    const ContainerOpener ffmpegOpen = containerDecoder();
    if (!ffmpegOnly) {
        auto sndfile = openWithSndfile(m_path);
        if (!sndfile) return fileError(sndfile.message());
        if (sndfile->reader) {
            m_reader = std::move(sndfile->reader);
            m_info.decoder = "libsndfile";
        } else if (!ffmpegOpen) {
            return fileError("not a recognised audio format (libsndfile: " + sndfile->whyNot +
                             "; this program has no FFmpeg fallback: the decoder helper, hearsay-decode, has it)");
        } else {
            auto ffmpeg = ffmpegOpen(m_path);
            if (!ffmpeg) {
                return fileError("not a recognised audio format (libsndfile: " + sndfile->whyNot +
                                 "; FFmpeg: " + ffmpeg.message() + ")");
            }
            m_reader = std::move(ffmpeg).value();
            m_info.decoder = "FFmpeg";
        }
    } else {
        if (!ffmpegOpen) return fileError("this program has no FFmpeg decoder");
        auto ffmpeg = ffmpegOpen(m_path);
        if (!ffmpeg) return fileError(ffmpeg.message());
        m_reader = std::move(ffmpeg).value();
        m_info.decoder = "FFmpeg";
    }
    m_info.sourceRate = m_reader->sampleRate();
    m_info.sourceChannels = m_reader->channels();
    m_info.format = m_reader->format();
    auto resampler = Resampler::create(m_info.sourceRate, kSampleRate, 1, m_quality);
    if (!resampler) return fileError(resampler.message());
    m_resampler = std::make_unique<Resampler>(std::move(resampler).value());
    m_sourceFrames = 0;
    m_samples = 0;
    m_ended = false;
    return {};
}

Result<void> AudioBlockDecoder::rewind() { return openReader(m_info.decoder == "FFmpeg"); }

Result<bool> AudioBlockDecoder::next(std::vector<float>& block) {
    block.clear();
    if (m_ended || !m_reader) return false;
    while (true) {
        auto frames = m_reader->next(m_interleaved);
        if (!frames) {
            m_ended = true;
            return fileError(frames.message());
        }
        if (frames.value() == 0) break;
        m_sourceFrames += frames.value();
        downmixToMono(m_interleaved.data(), frames.value(), m_info.sourceChannels, m_mono);
        if (auto resampled = m_resampler->process(m_mono.data(), m_mono.size(), block); !resampled) {
            m_ended = true;
            return fileError(resampled.message());
        }
        if (!block.empty()) {
            m_samples += block.size();
            return true;
        }
    }
    // The end: the resampler's tail, and a file with nothing in it is an error.
    m_ended = true;
    if (auto flushed = m_resampler->flush(block); !flushed) return fileError(flushed.message());
    m_samples += block.size();
    if (m_sourceFrames == 0 || m_samples == 0) {
        block.clear();
        return fileError("it contains no audio samples (" + m_info.format + ")");
    }
    return !block.empty();
}

} // namespace hearsay
