// decodeAudioFile: the whole file at once, as the concatenation of AudioBlockDecoder's blocks.
#include "core/audio/audio_file.h"

#include "core/audio/audio_block_decoder.h"

namespace hearsay {

bool ffmpegAvailable() {
#ifdef HEARSAY_HAVE_FFMPEG
    return true;
#else
    return false;
#endif
}

Result<AudioBuffer> decodeAudioFile(const std::filesystem::path& path) {
    auto decoder = AudioBlockDecoder::open(path);
    if (!decoder) return decoder.error();
    AudioBuffer buffer;
    std::vector<float> block;
    while (true) {
        auto more = decoder->next(block);
        if (!more) return more.error();
        if (!more.value()) break;
        buffer.samples.insert(buffer.samples.end(), block.begin(), block.end());
    }
    const AudioFileInfo& info = decoder->info();
    buffer.sourceRate = info.sourceRate;
    buffer.sourceChannels = info.sourceChannels;
    buffer.sourceFrames = size_t(decoder->sourceFramesRead());
    buffer.decoder = info.decoder;
    buffer.format = info.format;
    return buffer;
}

} // namespace hearsay
