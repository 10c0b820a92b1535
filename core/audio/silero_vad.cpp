// Silero VAD's forward pass for one chunk, top to bottom: reflect padding, STFT magnitude (a
// convolution with 258 fixed filters), four ReLU convolutions, an LSTM cell, a sigmoid head.
// Plain loops over contiguous output channels, which the compiler vectorises.
#include "core/audio/silero_vad.h"

#include "core/audio/silero_vad_weights.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

namespace hearsay {
namespace {

using D = SileroVadDims;
using W = SileroVadWeights;

// y[0..n) += a * w[0..n). n is a compile-time constant (a multiple of 16) in every call.
template <int N>
inline void axpy(float a, const float* __restrict w, float* __restrict y) {
    for (int o = 0; o < N; ++o) y[o] += a * w[o];
}

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// One tensor of the file, checked for presence, shape and finiteness, as float32 in PyTorch order.
Result<std::vector<float>> readTensor(const SafetensorsFile& file, const std::string& where, const std::string& name,
                                      const std::vector<int64_t>& shape) {
    auto it = file.tensors.find(name);
    if (it == file.tensors.end()) {
        return makeError(where + ": not Silero VAD 16 kHz weights: tensor '" + name + "' is missing");
    }
    const TensorView& view = it->second;
    if (view.shape != shape) {
        TensorView expected;
        expected.shape = shape;
        return makeError(where + ": tensor '" + name + "' has shape " + view.shapeString() + ", Silero VAD needs " +
                         expected.shapeString());
    }
    if (view.dtype != DType::F32 && view.dtype != DType::F16 && view.dtype != DType::BF16) {
        return makeError(where + ": tensor '" + name + "' has unsupported dtype " + std::string(dtypeName(view.dtype)));
    }
    if (auto bad = findNonFinite(view)) {
        return makeError(where + ": tensor '" + name + "' holds a non-finite value at element " + std::to_string(*bad));
    }
    std::vector<float> out(size_t(view.elements()));
    convertToFloat(view, out.data());
    return out;
}

// conv.weight [out][in][3] -> [in][tap][out]
template <size_t N>
void transposeConv(const std::vector<float>& w, int out, int in, std::array<float, N>& dst) {
    for (int o = 0; o < out; ++o)
        for (int c = 0; c < in; ++c)
            for (int j = 0; j < 3; ++j) dst[size_t((c * 3 + j) * out + o)] = w[size_t((o * in + c) * 3 + j)];
}

} // namespace

Result<std::shared_ptr<const SileroVadWeights>> SileroVadWeights::fromSafetensors(const SafetensorsFile& file,
                                                                                  const std::string& where) {
    auto weights = std::make_shared<SileroVadWeights>();
    SileroVadWeights& w = *weights;
    struct Spec {
        const char* name;
        std::vector<int64_t> shape;
    };
    const Spec specs[] = {
        {"stft_conv.weight", {258, 1, 256}}, {"conv1.weight", {128, 129, 3}}, {"conv1.bias", {128}},
        {"conv2.weight", {64, 128, 3}},      {"conv2.bias", {64}},            {"conv3.weight", {64, 64, 3}},
        {"conv3.bias", {64}},                {"conv4.weight", {128, 64, 3}},  {"conv4.bias", {128}},
        {"lstm_cell.weight_ih", {512, 128}}, {"lstm_cell.weight_hh", {512, 128}},
        {"lstm_cell.bias_ih", {512}},        {"lstm_cell.bias_hh", {512}},
        {"final_conv.weight", {1, 128, 1}},  {"final_conv.bias", {1}},
    };
    std::vector<std::vector<float>> t;
    for (const Spec& spec : specs) {
        auto tensor = readTensor(file, where, spec.name, spec.shape);
        if (!tensor) return tensor.error();
        t.push_back(std::move(tensor.value()));
    }
    const auto& [stft, c1, c1b, c2, c2b, c3, c3b, c4, c4b, wih, whh, bih, bhh, fw, fb] =
        std::tie(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13], t[14]);

    for (int o = 0; o < 258; ++o)
        for (int k = 0; k < D::kFft; ++k) w.stft[size_t(k * kStftOutputs + o)] = stft[size_t(o * D::kFft + k)];
    transposeConv(c1, 128, 129, w.conv1);
    transposeConv(c2, 64, 128, w.conv2);
    transposeConv(c3, 64, 64, w.conv3);
    for (int o = 0; o < 128; ++o)
        for (int c = 0; c < 64; ++c) w.conv4[size_t(c * 128 + o)] = c4[size_t((o * 64 + c) * 3 + 1)];
    std::copy(c1b.begin(), c1b.end(), w.conv1Bias.begin());
    std::copy(c2b.begin(), c2b.end(), w.conv2Bias.begin());
    std::copy(c3b.begin(), c3b.end(), w.conv3Bias.begin());
    std::copy(c4b.begin(), c4b.end(), w.conv4Bias.begin());
    for (int g = 0; g < 512; ++g) {
        for (int i = 0; i < 128; ++i) {
            w.lstm[size_t(i * 512 + g)] = wih[size_t(g * 128 + i)];
            w.lstm[size_t((128 + i) * 512 + g)] = whh[size_t(g * 128 + i)];
        }
        w.lstmBias[size_t(g)] = bih[size_t(g)] + bhh[size_t(g)];
    }
    std::copy(fw.begin(), fw.end(), w.head.begin());
    w.headBias = fb[0];
    return std::shared_ptr<const SileroVadWeights>(std::move(weights));
}

Result<SileroVad> SileroVad::fromBytes(std::span<const std::byte> bytes, const std::string& where) {
    auto file = readSafetensors(bytes, where);
    if (!file) return file.error();
    auto weights = SileroVadWeights::fromSafetensors(file.value(), where);
    if (!weights) return weights.error();
    return SileroVad(std::move(weights.value()), where);
}

Result<SileroVad> SileroVad::load(const std::filesystem::path& path) {
    auto file = openSafetensors(path);
    if (!file) return makeError("Silero VAD weights: " + file.message());
    auto weights = SileroVadWeights::fromSafetensors(file.value(), path.string());
    if (!weights) return weights.error();
    return SileroVad(std::move(weights.value()), path.string());
}

Result<SileroVad> SileroVad::loadBundled() {
    const auto bytes = bundledSileroVadWeights();
    if (bytes.empty()) return makeError("this build carries no Silero VAD weights");
    return fromBytes(bytes, kBundledSileroVadName);
}

SileroVad::SileroVad(std::shared_ptr<const SileroVadWeights> weights, std::string source)
    : m_weights(std::move(weights)), m_source(std::move(source)) {}

void SileroVad::reset() {
    m_context.fill(0.0f);
    m_h.fill(0.0f);
    m_c.fill(0.0f);
}

std::string SileroVad::describe() const { return "Silero VAD (" + m_source + ")"; }

float SileroVad::process(std::span<const float, kVadChunkSamples> chunk) {
    const W& w = *m_weights;

    // x [640]: the previous chunk's last 64 samples, this chunk, then 64 samples reflected
    // about the last one (x[576 + k] = x[574 - k]).
    alignas(64) float x[D::kPadded];
    // Samples outside full scale are clipped and NaN is silence, as an ADC would deliver them:
    // a broken driver's NaN or Inf must not turn the LSTM state (carried to every later chunk)
    // into NaN (found by tests/fuzz/fuzz_voice_activity).
    std::copy(m_context.begin(), m_context.end(), x);
    for (size_t i = 0; i < chunk.size(); ++i) {
        const float v = chunk[i];
        x[kVadContextSamples + i] = std::isnan(v) ? 0.0f : std::clamp(v, -1.0f, 1.0f);
    }
    for (int k = 0; k < D::kPadded - D::kWindow; ++k) x[D::kWindow + k] = x[D::kWindow - 2 - k];
    std::copy(x + D::kWindow - kVadContextSamples, x + D::kWindow, m_context.begin());

    // STFT as a convolution: spec [4 frames][272] (real 0..128, imaginary 129..257), hop 128.
    alignas(64) float spec[D::kFrames][W::kStftOutputs] = {};
    for (int k = 0; k < D::kFft; ++k) {
        const float* row = &w.stft[size_t(k * W::kStftOutputs)];
        for (int t = 0; t < D::kFrames; ++t) axpy<W::kStftOutputs>(x[t * D::kHop + k], row, spec[t]);
    }
    // Magnitude: mag [4][129]
    float mag[D::kFrames][D::kBins];
    for (int t = 0; t < D::kFrames; ++t)
        for (int f = 0; f < D::kBins; ++f) {
            const float re = spec[t][f], im = spec[t][D::kBins + f];
            mag[t][f] = std::sqrt(re * re + im * im);
        }

    // conv1: 129 -> 128 channels, kernel 3, padding 1, 4 frames -> a1 [4][128], ReLU
    alignas(64) float a1[D::kFrames][128];
    for (int t = 0; t < D::kFrames; ++t) {
        std::copy(w.conv1Bias.begin(), w.conv1Bias.end(), a1[t]);
        for (int c = 0; c < D::kBins; ++c)
            for (int j = 0; j < 3; ++j) {
                const int src = t + j - 1;
                if (src >= 0 && src < D::kFrames) axpy<128>(mag[src][c], &w.conv1[size_t((c * 3 + j) * 128)], a1[t]);
            }
        for (float& v : a1[t]) v = std::max(v, 0.0f);
    }
    // conv2: 128 -> 64, kernel 3, stride 2, padding 1: 4 frames -> a2 [2][64], ReLU
    alignas(64) float a2[2][64];
    for (int u = 0; u < 2; ++u) {
        std::copy(w.conv2Bias.begin(), w.conv2Bias.end(), a2[u]);
        for (int c = 0; c < 128; ++c)
            for (int j = 0; j < 3; ++j) {
                const int src = 2 * u + j - 1;
                if (src >= 0 && src < D::kFrames) axpy<64>(a1[src][c], &w.conv2[size_t((c * 3 + j) * 64)], a2[u]);
            }
        for (float& v : a2[u]) v = std::max(v, 0.0f);
    }
    // conv3: 64 -> 64, kernel 3, stride 2, padding 1: 2 frames -> a3 [64] (taps 1 and 2 see
    // frames 0 and 1, tap 0 the padding), ReLU
    alignas(64) float a3[64];
    std::copy(w.conv3Bias.begin(), w.conv3Bias.end(), a3);
    for (int c = 0; c < 64; ++c)
        for (int j = 1; j < 3; ++j) axpy<64>(a2[j - 1][c], &w.conv3[size_t((c * 3 + j) * 64)], a3);
    for (float& v : a3) v = std::max(v, 0.0f);
    // conv4: 64 -> 128, kernel 3, padding 1, one frame: the middle tap -> a4 [128], ReLU
    alignas(64) float a4[128];
    std::copy(w.conv4Bias.begin(), w.conv4Bias.end(), a4);
    for (int c = 0; c < 64; ++c) axpy<128>(a3[c], &w.conv4[size_t(c * 128)], a4);
    for (float& v : a4) v = std::max(v, 0.0f);

    // LSTM cell: gates [512] = W_ih a4 + W_hh h + b; i, f, g, o; c = f c + i g; h = o tanh(c)
    alignas(64) float gates[512];
    std::copy(w.lstmBias.begin(), w.lstmBias.end(), gates);
    for (int i = 0; i < D::kHidden; ++i) axpy<512>(a4[i], &w.lstm[size_t(i * 512)], gates);
    for (int i = 0; i < D::kHidden; ++i) axpy<512>(m_h[size_t(i)], &w.lstm[size_t((D::kHidden + i) * 512)], gates);
    for (int k = 0; k < D::kHidden; ++k) {
        const float in = sigmoid(gates[k]);
        const float forget = sigmoid(gates[D::kHidden + k]);
        const float cell = std::tanh(gates[2 * D::kHidden + k]);
        const float out = sigmoid(gates[3 * D::kHidden + k]);
        m_c[size_t(k)] = forget * m_c[size_t(k)] + in * cell;
        m_h[size_t(k)] = out * std::tanh(m_c[size_t(k)]);
    }

    // Head: ReLU, 1x1 convolution to one channel, sigmoid (the mean over one frame is itself).
    float z = w.headBias;
    for (int k = 0; k < D::kHidden; ++k) z += std::max(m_h[size_t(k)], 0.0f) * w.head[size_t(k)];
    return sigmoid(z);
}

} // namespace hearsay
