// Sample-rate conversion with libsamplerate, block by block with state kept between blocks:
// file decoding feeds it whole files in pieces, the live microphone path feeds it callbacks.
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <memory>
#include <vector>

struct SRC_STATE_tag;

namespace hearsay {

class Resampler {
public:
    enum class Quality {
        Best,    // SRC_SINC_BEST_QUALITY: ~97 dB SNR, for files
        Medium,  // SRC_SINC_MEDIUM_QUALITY: cheaper, for live input
        Fastest, // SRC_SINC_FASTEST
    };

    // Rates in Hz (> 0, ratio within libsamplerate's 1/256..256); channels ≥ 1, interleaved.
    // Equal rates make a pass-through that copies samples exactly.
    static Result<Resampler> create(int inputRate, int outputRate, int channels, Quality quality = Quality::Best);

    Resampler(Resampler&&) noexcept;
    Resampler& operator=(Resampler&&) noexcept;
    ~Resampler();

    // Converts `frames` interleaved frames [frames][channels] and appends the output frames
    // produced so far to `out`. The filter delays output: flush() releases the rest.
    Result<void> process(const float* input, size_t frames, std::vector<float>& out);
    // Ends the stream: appends the remaining output. Call reset() before reusing.
    Result<void> flush(std::vector<float>& out);
    // Forgets all state (a new stream at the same rates).
    void reset();

    int inputRate() const { return m_inputRate; }
    int outputRate() const { return m_outputRate; }
    int channels() const { return m_channels; }

private:
    Resampler(int inputRate, int outputRate, int channels, SRC_STATE_tag* state);
    Result<void> run(const float* input, size_t frames, bool endOfInput, std::vector<float>& out);

    int m_inputRate = 0;
    int m_outputRate = 0;
    int m_channels = 1;
    double m_ratio = 1.0;               // output rate / input rate
    SRC_STATE_tag* m_state = nullptr;   // null for the pass-through
};

} // namespace hearsay
