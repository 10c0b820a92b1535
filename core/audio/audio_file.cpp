// decodeAudioFile: checks the file, decodes it with libsndfile or else FFmpeg, and mixes and
// resamples the decoded blocks to 16 kHz mono as they arrive.
#include "core/audio/audio_file.h"

#include "core/audio/ffmpeg_decoder.h"
#include "core/audio/resampler.h"
#include "core/audio/sndfile_decoder.h"

#include <optional>
#include <system_error>

namespace hearsay {
namespace {

constexpr int kTargetRate = 16000;

// Averages the channels of each block and resamples the mono signal to 16 kHz.
class MonoResamplingConsumer : public PcmConsumer {
public:
    explicit MonoResamplingConsumer(AudioBuffer& buffer) : m_buffer(buffer) {}

    Result<void> begin(int sampleRate, int channels) override {
        auto resampler = Resampler::create(sampleRate, kTargetRate, 1, Resampler::Quality::Best);
        if (!resampler) return resampler.error();
        m_resampler.emplace(std::move(resampler).value());
        m_channels = channels;
        m_buffer.sourceRate = sampleRate;
        m_buffer.sourceChannels = channels;
        return {};
    }

    Result<void> consume(const float* interleaved, size_t frames) override {
        m_mono.resize(frames);
        const size_t channels = size_t(m_channels);
        if (channels == 1) {
            m_mono.assign(interleaved, interleaved + frames);
        } else {
            const float scale = 1.0f / float(channels);
            for (size_t i = 0; i < frames; ++i) {
                float sum = 0.0f;
                for (size_t c = 0; c < channels; ++c) sum += interleaved[i * channels + c];
                m_mono[i] = sum * scale;
            }
        }
        m_buffer.sourceFrames += frames;
        return m_resampler->process(m_mono.data(), frames, m_buffer.samples);
    }

    Result<void> finish() { return m_resampler ? m_resampler->flush(m_buffer.samples) : Result<void>(); }

private:
    AudioBuffer& m_buffer;
    std::optional<Resampler> m_resampler;
    int m_channels = 1;
    std::vector<float> m_mono;  // [frames] scratch
};

Error fileError(const std::filesystem::path& path, const std::string& reason) {
    return makeError("cannot decode audio file '" + path.string() + "': " + reason);
}

} // namespace

bool ffmpegAvailable() {
#ifdef HEARSAY_HAVE_FFMPEG
    return true;
#else
    return false;
#endif
}

Result<AudioBuffer> decodeAudioFile(const std::filesystem::path& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) return fileError(path, "no such file");
    if (std::filesystem::is_directory(status)) return fileError(path, "it is a directory");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return fileError(path, ec.message());
    if (size == 0) return fileError(path, "the file is empty (0 bytes)");

    AudioBuffer buffer;
    {
        MonoResamplingConsumer consumer(buffer);
        auto sndfile = decodeWithSndfile(path, consumer);
        if (!sndfile) return fileError(path, sndfile.message());
        if (sndfile->recognised) {
            if (auto finished = consumer.finish(); !finished) return fileError(path, finished.message());
            buffer.decoder = "libsndfile";
            buffer.format = sndfile->format;
        } else if (!ffmpegAvailable()) {
            return fileError(path, "not a recognised audio format (libsndfile: " + sndfile->whyNot +
                                       "; this build has no FFmpeg fallback)");
        } else {
            buffer = AudioBuffer{};
            MonoResamplingConsumer fallback(buffer);
            auto ffmpeg = decodeWithFfmpeg(path, fallback);
            if (!ffmpeg) {
                return fileError(path, "not a recognised audio format (libsndfile: " + sndfile->whyNot +
                                           " FFmpeg: " + ffmpeg.message() + ")");
            }
            if (auto finished = fallback.finish(); !finished) return fileError(path, finished.message());
            buffer.decoder = "FFmpeg";
            buffer.format = ffmpeg.value();
        }
    }
    if (buffer.sourceFrames == 0 || buffer.samples.empty()) {
        return fileError(path, "it contains no audio samples (" + buffer.format + ")");
    }
    return buffer;
}

} // namespace hearsay
