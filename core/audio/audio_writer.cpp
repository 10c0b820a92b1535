// libsndfile writer behind writeAudioFile (see audio_writer.h).
#include "core/audio/audio_writer.h"

#include <sndfile.h>

#include <string>

namespace hearsay {
namespace {

int sndfileFormat(AudioFileFormat format) {
    switch (format) {
    case AudioFileFormat::Wav16: return SF_FORMAT_WAV | SF_FORMAT_PCM_16;
    case AudioFileFormat::WavFloat: return SF_FORMAT_WAV | SF_FORMAT_FLOAT;
    case AudioFileFormat::Flac16: return SF_FORMAT_FLAC | SF_FORMAT_PCM_16;
    case AudioFileFormat::OggVorbis: return SF_FORMAT_OGG | SF_FORMAT_VORBIS;
    case AudioFileFormat::Mp3: return SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III;
    }
    return 0;
}

} // namespace

Result<void> writeAudioFile(const std::filesystem::path& path, const float* interleaved, size_t frames,
                            int sampleRate, int channels, AudioFileFormat format) {
    const std::string where = "cannot write audio file '" + path.string() + "': ";
    SF_INFO info{};
    info.samplerate = sampleRate;
    info.channels = channels;
    info.format = sndfileFormat(format);
    if (sampleRate <= 0 || channels <= 0 || !sf_format_check(&info)) {
        return makeError(where + "libsndfile cannot write this format at " + std::to_string(sampleRate) +
                         " Hz with " + std::to_string(channels) + " channels");
    }
    SNDFILE* file = sf_open(path.c_str(), SFM_WRITE, &info);
    if (!file) return makeError(where + sf_strerror(nullptr));
    // Lossy encoders clip badly past full scale; libsndfile clips when asked to.
    sf_command(file, SFC_SET_CLIPPING, nullptr, SF_TRUE);
    const sf_count_t written = sf_writef_float(file, interleaved, sf_count_t(frames));
    const std::string error = sf_strerror(file);
    const int closed = sf_close(file);
    if (written != sf_count_t(frames)) return makeError(where + error);
    if (closed != 0) return makeError(where + sf_error_number(closed));
    return {};
}

} // namespace hearsay
