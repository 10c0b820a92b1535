// Audio files from users: whatever libsndfile (WAV, FLAC, OGG, MP3, ...) and the FFmpeg fallback
// make of arbitrary bytes, decoded block by block to 16 kHz mono as file transcription and the
// simulated-live source read them. Samples delivered are finite; errors carry a message.
#include "fuzz_support.h"

#include "core/audio/audio_block_decoder.h"

#include <cmath>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto path = hearsay::fuzz::writeScratch("audio.bin", data, size);
    auto decoder = hearsay::AudioBlockDecoder::open(path, hearsay::Resampler::Quality::Fastest);
    if (!decoder) {
        HEARSAY_FUZZ_CHECK(!decoder.message().empty());
        return 0;
    }
    std::vector<float> block;
    uint64_t total = 0;
    for (int blocks = 0; blocks < 4096; ++blocks) {
        auto more = decoder->next(block);
        if (!more) {
            HEARSAY_FUZZ_CHECK(!more.message().empty());
            break;
        }
        if (!more.value()) break;
        HEARSAY_FUZZ_CHECK(!block.empty());
        for (float s : block) HEARSAY_FUZZ_CHECK(std::isfinite(s));
        total += block.size();
    }
    HEARSAY_FUZZ_CHECK(total == decoder->samplesDelivered());
    return 0;
}
