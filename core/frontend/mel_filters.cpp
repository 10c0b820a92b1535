// The slaney-style mel filterbank of librosa.filters.mel(sr=16000, n_fft=400, norm="slaney"),
// which Whisper's feature extractor uses: triangular filters between mel-spaced edges,
// each scaled by 2 / (bandwidth in Hz).
#include "core/frontend/log_mel.h"

#include <algorithm>
#include <cmath>

namespace hearsay {
namespace {

// Slaney's mel scale: linear below 1 kHz, logarithmic above.
constexpr double kMelLinearStep = 200.0 / 3.0;
constexpr double kMinLogHz = 1000.0;
constexpr double kMinLogMel = kMinLogHz / kMelLinearStep;

double logStep() { return std::log(6.4) / 27.0; }

double hzToMel(double hz) {
    if (hz >= kMinLogHz) return kMinLogMel + std::log(hz / kMinLogHz) / logStep();
    return hz / kMelLinearStep;
}

double melToHz(double mel) {
    if (mel >= kMinLogMel) return kMinLogHz * std::exp(logStep() * (mel - kMinLogMel));
    return mel * kMelLinearStep;
}

// Fills [n_mels][201] with the triangles times the slaney norm. roundTriangle says whether the
// triangle is rounded to float32 before scaling, as librosa does (its weights array is float32).
template <class T>
std::vector<T> buildFilterbank(int nMels, bool roundTriangle) {
    if (nMels <= 0) return {};
    const int nBins = kFftSize / 2 + 1;
    std::vector<double> fftFreqs(static_cast<size_t>(nBins));
    for (int k = 0; k < nBins; ++k) fftFreqs[size_t(k)] = double(k) * kSampleRate / kFftSize;

    const double melMin = hzToMel(0.0);
    const double melMax = hzToMel(kSampleRate / 2.0);
    std::vector<double> edges(size_t(nMels + 2));
    for (int i = 0; i < nMels + 2; ++i) {
        double mel = melMin + (melMax - melMin) * double(i) / double(nMels + 1);
        edges[size_t(i)] = melToHz(mel);
    }

    std::vector<T> filters(size_t(nMels) * size_t(nBins), T(0));
    for (int m = 0; m < nMels; ++m) {
        const double lowerWidth = edges[size_t(m + 1)] - edges[size_t(m)];
        const double upperWidth = edges[size_t(m + 2)] - edges[size_t(m + 1)];
        const double norm = 2.0 / (edges[size_t(m + 2)] - edges[size_t(m)]);
        for (int k = 0; k < nBins; ++k) {
            double lower = (fftFreqs[size_t(k)] - edges[size_t(m)]) / lowerWidth;
            double upper = (edges[size_t(m + 2)] - fftFreqs[size_t(k)]) / upperWidth;
            double triangle = std::max(0.0, std::min(lower, upper));
            if (roundTriangle) triangle = double(float(triangle));
            filters[size_t(m) * size_t(nBins) + size_t(k)] = T(triangle * norm);
        }
    }
    return filters;
}

} // namespace

std::vector<float> melFilterbank(int nMels) { return buildFilterbank<float>(nMels, true); }

std::vector<double> melFilterbankF64(int nMels) { return buildFilterbank<double>(nMels, false); }

} // namespace hearsay
