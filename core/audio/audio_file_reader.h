// Which decoder an audio file goes through: by default the helper process (hearsay-decode,
// decoder_process.h), so that a decoder crashing on a hostile file cannot take the application
// down; in this process (AudioBlockDecoder) when asked, or when no helper is installed. Every
// file reader in Hearsay (decodeAudioFile, the simulated live source, the CLI) opens files here.
#pragma once

#include "core/audio/audio_block_decoder.h"
#include "core/audio/decoder_process.h"
#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

namespace hearsay {

enum class DecodeIsolation {
    Auto,       // the helper when one is found (findDecoderHelper); else in process, with a
                // one-line warning on stderr (once per process)
    Helper,     // the helper, or an error when there is none
    InProcess,  // AudioBlockDecoder in this process (the fuzz target; trusted files)
};

struct AudioDecodeOptions {
    DecodeIsolation isolation = DecodeIsolation::Auto;
    Resampler::Quality quality = Resampler::Quality::Best;  // the 16 kHz conversion
    std::filesystem::path helper;     // the helper executable; empty: findDecoderHelper()
    double stallSeconds = 30.0;       // a helper silent this long is killed as hung
    uint64_t memoryLimitBytes = 4ull << 30;  // the helper's address-space limit (RLIMIT_AS)
};

struct DecoderHelperLocation {
    std::filesystem::path path;  // the executable; empty when none was found or it is turned off
    bool turnedOff = false;      // HEARSAY_DECODER=in-process
};

// Where the helper is: $HEARSAY_DECODER when set (a path, or "in-process" to turn the helper
// off), else hearsay-decode next to the running executable (/proc/self/exe), else
// ../libexec/hearsay/hearsay-decode relative to it (an installed layout). An error when
// $HEARSAY_DECODER names something that is not an executable file.
Result<DecoderHelperLocation> findDecoderHelper();

// The same pulling interface as AudioBlockDecoder (see there), whichever decoder is behind it.
class AudioFileReader {
public:
    static Result<AudioFileReader> open(const std::filesystem::path& path, const AudioDecodeOptions& options = {});

    AudioFileReader(AudioFileReader&&) noexcept;
    AudioFileReader& operator=(AudioFileReader&&) noexcept;
    ~AudioFileReader();

    Result<bool> next(std::vector<float>& block);
    Result<void> rewind();

    const AudioFileInfo& info() const;
    const std::filesystem::path& path() const;
    uint64_t sourceFramesRead() const;
    uint64_t samplesDelivered() const;
    // The helper process behind this reader; null when decoding in process.
    const DecoderProcess* process() const { return m_process.get(); }

private:
    AudioFileReader() = default;

    std::unique_ptr<DecoderProcess> m_process;       // exactly one of the two is set
    std::unique_ptr<AudioBlockDecoder> m_inProcess;
};

} // namespace hearsay
