// The inner steps shared by the batch and the streaming log-mel frontends (internal to
// core/frontend): one STFT frame to log10 mel energies, the frames of a segment padded to 30 s
// the way the reference pads it, and the final clamp and scaling. Sharing them makes the
// two paths produce bit-identical windows.
#pragma once

#include "core/frontend/log_mel.h"

#include <kiss_fftr.h>

#include <functional>
#include <optional>
#include <vector>

namespace hearsay {

// Turns 400 samples into n_mels values log10(max(mel power, 1e-10)); float64 from the window
// on, except the FFT itself (KissFFT float). Holds scratch buffers: one per thread.
class MelFrameComputer {
public:
    explicit MelFrameComputer(int nMels);
    ~MelFrameComputer();
    MelFrameComputer(const MelFrameComputer&) = delete;
    MelFrameComputer& operator=(const MelFrameComputer&) = delete;

    int nMels() const { return m_nMels; }
    // frame: [400] samples of the frame (centred on its hop position); out: [n_mels].
    void compute(const float* frame, float* out);
    // The value of every mel bin of an all-zero frame: float(log10(1e-10)).
    static float silenceValue();

private:
    int m_nMels;
    kiss_fftr_cfg m_fft = nullptr;
    std::vector<double> m_window;        // [400] periodic Hann
    std::vector<kiss_fft_scalar> m_input;  // [400] windowed frame
    std::vector<kiss_fft_cpx> m_spectrum;  // [201]
    std::vector<double> m_power;         // [201] |X|^2
    // Sparse filterbank: mel m uses bins [m_firstBin[m], m_firstBin[m] + m_binCount[m]) with
    // weights m_weights[m_weightStart[m] ...].
    std::vector<int> m_firstBin, m_binCount;
    std::vector<size_t> m_weightStart;
    std::vector<double> m_weights;
};

// Returns the stored log10 mel frame [n_mels] for segment frame t, or nullptr to compute it.
using StoredFrameLookup = std::function<const float*(int t)>;

// Log10 mel frames [tEnd - tBegin][n_mels] (into out) of the segment seg[0, length), length ≤
// 480000, as the reference sees it: zero-padded to 480000 samples, then reflect-padded by 200 at
// both ends. Frame t is centred on sample t*160. Frames whose 400 samples lie inside the
// segment (t ≥ 2) come from stored when it gives them; edge frames are always computed;
// all-zero frames get silenceValue() without an FFT.
void segmentLogMelFrames(MelFrameComputer& computer, const float* seg, size_t length,
                         int tBegin, int tEnd, const StoredFrameLookup& stored, float* out);

// Clamp to (max - 8) and scale by (x + 4) / 4 in float32, as the reference does after casting
// its log10 spectrogram to float32. logFrames: [frames][n_mels] -> LogMel [n_mels][frames].
LogMel normaliseLogMel(const std::vector<float>& logFrames, int nMels, int frames);

// The reference's long-form window: `frames` log10 frames [frames][n_mels] of a recording, clamped
// to (clampMax - 8) (or their own maximum's when none), scaled by (x + 4) / 4, then 0.0 up to
// 3000 frames -> LogMel [n_mels][3000].
LogMel normaliseWindowFrames(const std::vector<float>& logFrames, int nMels, int frames, std::optional<float> clampMax);

} // namespace hearsay
