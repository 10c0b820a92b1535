// whisper.cpp's ggml model files: the header (hyperparameters), the mel filterbank, the
// vocabulary and the tensor table, first through the layout reader, then through the whole model
// loader (which checks every expected tensor and shape against the hyperparameters).
#include "fuzz_support.h"

#include "core/model/ggml_file.h"
#include "core/model/whisper_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto path = hearsay::fuzz::writeScratch("model.bin", data, size);
    auto file = hearsay::openGgml(path);
    if (!file) {
        HEARSAY_FUZZ_CHECK(!file.message().empty());
        return 0;
    }
    hearsay::LoadOptions options;
    auto model = hearsay::WhisperModel::load(path, options);
    if (!model) HEARSAY_FUZZ_CHECK(!model.message().empty());
    return 0;
}
