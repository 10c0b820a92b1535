// Randomly initialised Whisper models of real dimensions with the real vocabulary, for tests and
// benchmarks (there are no pretrained weights on the development machines). The weights follow
// random_init.h, so the Python reference harness can rebuild the same model bit for bit.
#pragma once

#include "core/model/tensor.h"
#include "core/model/whisper_config.h"
#include "core/model/whisper_model.h"
#include "core/model/whisper_tensors.h"
#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hearsay {

struct TestModelOptions {
    std::string dims = "tiny";               // official size name or DxLxH
    uint64_t seed = 0;
    ModelFormat format = ModelFormat::HuggingFace;
    DType dtype = DType::F32;
    std::filesystem::path vocabularyFile;    // a whisper.cpp ggml file holding the vocabulary
};

// Elements [first, first + count) of a tensor under the deterministic scheme (mean/std from spec).
void testModelWeights(uint64_t seed, const TensorSpec& spec, int64_t first, int64_t count, float* out);

// Writes the model to `out`: a checkpoint directory (hf) or a .bin file (ggml).
Result<void> makeTestModel(const TestModelOptions& options, const std::filesystem::path& out);

// Parses "f32", "f16", "bf16", "q8_0", "q5_0", "q5_1", "q4_0", "q4_1".
Result<DType> parseDtype(const std::string& name);

} // namespace hearsay
