// Tokenizer of a loaded model (see model_tokenizer.h).
#include "core/model/model_tokenizer.h"

namespace hearsay {

Result<Tokenizer> tokenizerForModel(const WhisperModel& model) {
    if (model.vocabulary().empty()) {
        return makeError(model.path().string() + " has no vocabulary (a Hugging Face checkpoint needs vocab.json or "
                                                 "tokenizer.json beside its weights)");
    }
    auto tokenizer = Tokenizer::fromVocabulary(model.sharedVocabulary(), model.config().nVocab);
    if (!tokenizer) return makeError(model.path().string() + ": " + tokenizer.message());
    return tokenizer;
}

} // namespace hearsay
