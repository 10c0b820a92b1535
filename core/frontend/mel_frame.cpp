// One STFT frame to log10 mel energies, segment padding and normalisation (see mel_frame.h).
#include "core/frontend/mel_frame.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace hearsay {
namespace {

constexpr int kBins = kFftSize / 2 + 1;  // 201
constexpr int kHalfFrame = kFftSize / 2; // 200: centre padding on each side
constexpr double kMelFloor = 1e-10;
// log10(x) as ln(x) / ln(10): half the cost of std::log10 in glibc, and still float64, far
// below the float32 rounding of the result.
constexpr double kInvLn10 = 0.43429448190325182765;

} // namespace

MelFrameComputer::MelFrameComputer(int nMels)
    : m_nMels(nMels),
      m_window(size_t(kFftSize)),
      m_input(size_t(kFftSize)),
      m_spectrum(size_t(kBins)),
      m_power(size_t(kBins)) {
    m_fft = kiss_fftr_alloc(kFftSize, 0, nullptr, nullptr);
    for (int n = 0; n < kFftSize; ++n) {
        m_window[size_t(n)] = 0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * n / kFftSize);
    }
    const std::vector<double> filters = melFilterbankF64(nMels);  // [n_mels][201]
    for (int m = 0; m < nMels; ++m) {
        const double* row = filters.data() + size_t(m) * kBins;
        int first = 0;
        while (first < kBins && row[first] == 0.0) ++first;
        int last = kBins;
        while (last > first && row[last - 1] == 0.0) --last;
        m_firstBin.push_back(first);
        m_binCount.push_back(last - first);
        m_weightStart.push_back(m_weights.size());
        m_weights.insert(m_weights.end(), row + first, row + last);
    }
}

MelFrameComputer::~MelFrameComputer() { kiss_fftr_free(m_fft); }

float MelFrameComputer::silenceValue() { return float(std::log(kMelFloor) * kInvLn10); }

void MelFrameComputer::compute(const float* frame, float* out) {
    for (int n = 0; n < kFftSize; ++n) {
        m_input[size_t(n)] = kiss_fft_scalar(double(frame[n]) * m_window[size_t(n)]);
    }
    kiss_fftr(m_fft, m_input.data(), m_spectrum.data());
    for (int k = 0; k < kBins; ++k) {
        const double re = m_spectrum[size_t(k)].r;
        const double im = m_spectrum[size_t(k)].i;
        m_power[size_t(k)] = re * re + im * im;
    }
    for (int m = 0; m < m_nMels; ++m) {
        const double* w = m_weights.data() + m_weightStart[size_t(m)];
        const double* p = m_power.data() + m_firstBin[size_t(m)];
        double sum = 0.0;
        for (int j = 0; j < m_binCount[size_t(m)]; ++j) sum += w[j] * p[j];
        out[m] = float(std::log(std::max(sum, kMelFloor)) * kInvLn10);
    }
}

void segmentLogMelFrames(MelFrameComputer& computer, const float* seg, size_t length,
                         int tBegin, int tEnd, const StoredFrameLookup& stored, float* out) {
    const long n = std::min<long>(long(length), kChunkSamples);
    const int nMels = computer.nMels();
    const float silence = MelFrameComputer::silenceValue();
    // Sample i of the padded signal, i in [-200, 480200): reflect at both ends of the
    // 480000-sample zero-padded segment (numpy's pad mode "reflect" excludes the edge sample).
    auto paddedSample = [&](long i) -> float {
        if (i < 0) i = -i;
        if (i >= kChunkSamples) i = 2 * (kChunkSamples - 1) - i;
        return i < n ? seg[i] : 0.0f;
    };
    float buffer[kFftSize];
    for (int t = tBegin; t < tEnd; ++t) {
        float* dst = out + size_t(t - tBegin) * size_t(nMels);
        const long start = long(t) * kHopLength - kHalfFrame;
        if (start >= 0 && start + kFftSize <= n) {
            const float* known = stored ? stored(t) : nullptr;
            if (known) {
                std::copy(known, known + nMels, dst);
            } else {
                computer.compute(seg + start, dst);
            }
            continue;
        }
        bool allZero = true;
        for (int j = 0; j < kFftSize; ++j) {
            buffer[j] = paddedSample(start + j);
            allZero = allZero && buffer[j] == 0.0f;
        }
        if (allZero) {
            std::fill(dst, dst + nMels, silence);
        } else {
            computer.compute(buffer, dst);
        }
    }
}

LogMel normaliseLogMel(const std::vector<float>& logFrames, int nMels, int frames) {
    LogMel mel;
    mel.nMels = nMels;
    mel.frames = frames;
    mel.data.resize(size_t(nMels) * size_t(frames));
    if (logFrames.empty()) return mel;
    const float maxValue = *std::max_element(logFrames.begin(), logFrames.end());
    const float floorValue = maxValue - 8.0f;
    for (int t = 0; t < frames; ++t) {
        const float* src = logFrames.data() + size_t(t) * size_t(nMels);
        for (int m = 0; m < nMels; ++m) {
            mel.data[size_t(m) * size_t(frames) + size_t(t)] = (std::max(src[m], floorValue) + 4.0f) / 4.0f;
        }
    }
    return mel;
}

LogMel normaliseWindowFrames(const std::vector<float>& logFrames, int nMels, int frames, std::optional<float> clampMax) {
    LogMel mel;
    mel.nMels = nMels;
    mel.frames = kChunkFrames;
    mel.data.assign(size_t(nMels) * size_t(kChunkFrames), 0.0f);
    frames = std::min(frames, kChunkFrames);
    if (frames <= 0) return mel;
    const float maxValue = clampMax ? *clampMax : *std::max_element(logFrames.begin(), logFrames.begin() + long(frames) * nMels);
    const float floorValue = maxValue - 8.0f;
    for (int t = 0; t < frames; ++t) {
        const float* src = logFrames.data() + size_t(t) * size_t(nMels);
        for (int m = 0; m < nMels; ++m) {
            mel.data[size_t(m) * size_t(kChunkFrames) + size_t(t)] = (std::max(src[m], floorValue) + 4.0f) / 4.0f;
        }
    }
    return mel;
}

} // namespace hearsay
