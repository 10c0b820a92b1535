// The tokenizer of a loaded model, built from the vocabulary the loader already read (ggml: the
// file's own, repaired; Hugging Face: vocab.json or tokenizer.json), so no file is parsed twice.
#pragma once

#include "core/model/whisper_model.h"
#include "core/text/tokenizer.h"
#include "core/util/result.h"

namespace hearsay {

Result<Tokenizer> tokenizerForModel(const WhisperModel& model);

} // namespace hearsay
