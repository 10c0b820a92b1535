// Whisper's audio encoder written against the Backend: two convolutions with GELU, the
// positional embedding, pre-norm transformer blocks and a final layer norm.
#pragma once

#include "core/backend/backend.h"
#include "core/model/whisper_config.h"
#include "core/nn/network_weights.h"

#include <memory>

namespace hearsay {

class WhisperEncoder {
public:
    // Allocates the activation workspace for one window (throws std::bad_alloc).
    WhisperEncoder(const WhisperConfig& config, const NetworkWeights& weights, Backend& backend);

    // melTimeMajor: [2·n_audio_ctx frames][n_mels] (the log-mel transposed); out: [n_audio_ctx][d]
    // (it holds the residual stream while the layers run).
    // `positions` (1..n_audio_ctx) of output from the first 2·positions mel frames.
    void run(BufferView melTimeMajor, BufferView out, int positions);

    // Elements of the mel input buffer run() expects.
    size_t melElements() const;
    // Bytes of the activation workspace.
    size_t workspaceBytes() const;

private:
    const WhisperConfig& m_config;
    const NetworkWeights& m_weights;
    Backend& m_backend;
    // The residual stream lives in run()'s `out`. The layers' rows, one buffer of at least [4T][d]:
    // ln (also the attention output: ln is dead once q, k and v are projected, and the output once
    // it is added to x), then q, k and v, and the MLP's hidden rows ([block rows][4d]) over the
    // room of q, k and v (dead once the attention's output is added to x). During the convolutions
    // it holds conv1's output [2T][d] and after it the im2col columns of each convolution (all of
    // them, or a block of rows at a time where the backend asks for less: the CPU's), which are
    // dead once the layers begin.
    std::unique_ptr<DeviceBuffer> m_rows;
    std::unique_ptr<DeviceBuffer> m_scores;   // attention workspace
    // The MLP runs blocks of positions, as few as keep a block within d rows, of equal size (tiny
    // 4 × 375, base 3 × 500, small to large 2 × 750): a product of hundreds of rows, while what a
    // GEMM packs of the block's rows (it grows with them: OpenBLAS packs x, 2.3 MB a thread at
    // 1500 rows) stays small beside the model.
    size_t m_blockRows = 0;
};

} // namespace hearsay
