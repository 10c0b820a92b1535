// The model's weights as backend buffers, converted once per (model, backend) from the
// WhisperWeights views (copies: in the CPU backend's huge pages or a GPU's memory), with every shape
// checked against the config so a malformed model fails with a clear message. DeviceWeights
// (device_weights.h) owns one such set and shares it between sessions.
#pragma once

#include "core/backend/backend.h"
#include "core/model/whisper_model.h"
#include "core/util/result.h"

#include <memory>
#include <vector>

namespace hearsay {

struct DeviceLinear {
    std::unique_ptr<DeviceBuffer> weight;  // [out][in] (conv: [out][in][3])
    std::unique_ptr<DeviceBuffer> bias;    // [out]; null for key projections
};

// Whisper's layer norms use PyTorch nn.LayerNorm's default epsilon.
inline constexpr float kLayerNormEps = 1e-5f;

struct DeviceLayerNorm {
    std::unique_ptr<DeviceBuffer> gamma;   // [d]
    std::unique_ptr<DeviceBuffer> beta;    // [d]
};

struct DeviceAttention {
    DeviceLinear query, key, value, out;   // [d][d] each; key without bias
};

struct DeviceEncoderLayer {
    DeviceLayerNorm attnLn;
    DeviceAttention attn;
    DeviceLayerNorm mlpLn;
    DeviceLinear fc1;                      // [4d][d]
    DeviceLinear fc2;                      // [d][4d]
};

struct DeviceDecoderLayer {
    DeviceLayerNorm selfAttnLn;
    DeviceAttention selfAttn;
    DeviceLayerNorm crossAttnLn;
    DeviceAttention crossAttn;
    DeviceLayerNorm mlpLn;
    DeviceLinear fc1;
    DeviceLinear fc2;
};

struct NetworkWeights {
    DeviceLinear conv1;                            // [d][n_mels][3], [d]
    DeviceLinear conv2;                            // [d][d][3], [d]
    std::unique_ptr<DeviceBuffer> encoderPositional;  // [n_audio_ctx..1500][d]
    std::vector<DeviceEncoderLayer> encoderLayers;
    DeviceLayerNorm encoderLn;
    std::unique_ptr<DeviceBuffer> tokenEmbedding;     // [n_vocab][d], also the output projection
    std::unique_ptr<DeviceBuffer> decoderPositional;  // [n_text_ctx][d]
    std::vector<DeviceDecoderLayer> decoderLayers;
    DeviceLayerNorm decoderLn;

    // Checks every tensor's presence and shape, then converts it on `backend`. Errors: BadInput
    // (a missing or misshapen tensor), OutOfMemory or Device (the backend could not hold them).
    static Result<NetworkWeights> load(const WhisperModel& model, Backend& backend);

    // Buffers held, and the bytes they occupy on the backend.
    size_t buffers() const;
    size_t bytes() const;
};

// A view of a whole buffer, or an empty view for a null one (an absent bias).
inline BufferView viewOf(const std::unique_ptr<DeviceBuffer>& buffer) { return BufferView(buffer.get()); }

} // namespace hearsay
