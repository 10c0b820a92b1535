// decodeAudioFile: the whole file at once, as the concatenation of AudioFileReader's blocks.
#include "core/audio/audio_file.h"
#include "core/audio/container_decoder.h"


namespace hearsay {

bool ffmpegAvailable() { return containerDecoder() != nullptr; }

Result<AudioBuffer> decodeAudioFile(const std::filesystem::path& path, const AudioDecodeOptions& options) {
    auto decoder = AudioFileReader::open(path, options);
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
