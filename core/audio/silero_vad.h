// Silero VAD (v5/v6, 16 kHz) run natively: the network of the silero-vad package (as its
// tinygrad_model.py writes it), weights read from a safetensors file with that file's tensor
// names. Weights are loaded once and shared; each stream has its own SileroVad with the LSTM
// state and the audio context.
#pragma once

#include "core/audio/vad_model.h"
#include "core/model/safetensors.h"
#include "core/util/result.h"

#include <array>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace hearsay {

// The network's sizes.
struct SileroVadDims {
    static constexpr int kWindow = kVadContextSamples + kVadChunkSamples;  // 576 samples seen per chunk
    static constexpr int kPadded = kWindow + 64;       // 640: reflect-padded on the right
    static constexpr int kFft = 256;                   // STFT window (as a convolution), hop 128
    static constexpr int kHop = 128;
    static constexpr int kFrames = (kPadded - kFft) / kHop + 1;  // 4
    static constexpr int kBins = kFft / 2 + 1;        // 129 magnitude bins
    static constexpr int kHidden = 128;               // LSTM width
};

// The weights, transposed at load so that every inner loop runs over output channels
// (contiguous, vectorisable, no reductions). Read-only after load.
struct SileroVadWeights {
    // stft_conv.weight [258][1][256] -> [256 taps][272 outputs]: rows 0..128 real, 129..257
    // imaginary parts, 258..271 zero (a multiple of 16 for the vector loops).
    static constexpr int kStftOutputs = 272;
    std::array<float, SileroVadDims::kFft * kStftOutputs> stft{};
    // conv1.weight [128][129][3] -> [129 in][3 taps][128 out], conv1.bias [128]
    std::array<float, 129 * 3 * 128> conv1{};
    std::array<float, 128> conv1Bias{};
    // conv2.weight [64][128][3] -> [128][3][64] (stride 2), conv2.bias [64]
    std::array<float, 128 * 3 * 64> conv2{};
    std::array<float, 64> conv2Bias{};
    // conv3.weight [64][64][3] -> [64][3][64] (stride 2), conv3.bias [64]
    std::array<float, 64 * 3 * 64> conv3{};
    std::array<float, 64> conv3Bias{};
    // conv4.weight [128][64][3] -> [64][128], the middle tap only: its input has one frame, the
    // outer taps see the zero padding. conv4.bias [128]
    std::array<float, 64 * 128> conv4{};
    std::array<float, 128> conv4Bias{};
    // lstm_cell.weight_ih [512][128] and weight_hh [512][128] -> [256 in: x then h][512 gates],
    // gates in PyTorch's order i, f, g, o; bias_ih + bias_hh [512]
    std::array<float, 256 * 512> lstm{};
    std::array<float, 512> lstmBias{};
    // final_conv.weight [1][128][1] -> [128], final_conv.bias [1]
    std::array<float, 128> head{};
    float headBias = 0.0f;

    // Every tensor present with its exact shape, float (F32, F16 or BF16) and finite.
    // `where` names the source in messages.
    static Result<std::shared_ptr<const SileroVadWeights>> fromSafetensors(const SafetensorsFile& file, const std::string& where);
};

class SileroVad final : public VadModel {
public:
    // From a safetensors file in tinygrad_model.py's layout: Hearsay's
    // resources/silero_vad_v6.2_16k.safetensors, or the silero-vad wheel's silero_vad_16k.safetensors
    // (a different training state, see core/audio/README.md).
    static Result<SileroVad> load(const std::filesystem::path& path);
    // From the weights built into the binary (resources/silero_vad_v6.2_16k.safetensors).
    static Result<SileroVad> loadBundled();
    // From safetensors bytes in memory; `where` names them in messages.
    static Result<SileroVad> fromBytes(std::span<const std::byte> bytes, const std::string& where);
    // Another stream on the same weights, with fresh state.
    explicit SileroVad(std::shared_ptr<const SileroVadWeights> weights, std::string source);

    // One 32 ms chunk: the network sees the last 64 samples of the previous chunk and these 512
    // (zeros before the first chunk), and carries its LSTM state to the next call.
    float process(std::span<const float, kVadChunkSamples> chunk) override;
    void reset() override;
    std::string describe() const override;
    bool isFallback() const override { return false; }

    const std::shared_ptr<const SileroVadWeights>& weights() const { return m_weights; }

private:
    std::shared_ptr<const SileroVadWeights> m_weights;
    std::string m_source;
    std::array<float, kVadContextSamples> m_context{};  // the previous chunk's last 64 samples
    std::array<float, SileroVadDims::kHidden> m_h{};     // LSTM hidden state
    std::array<float, SileroVadDims::kHidden> m_c{};     // LSTM cell state
};

} // namespace hearsay
