// Whisper hyper-parameters (the dimensions of the network) and the named official sizes.
#pragma once

#include "core/util/result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

struct WhisperConfig {
    int nMels = 80;          // log-mel bins: 80, or 128 for large-v3 and turbo
    int nAudioCtx = 1500;    // encoder positions per 30 s window
    int nAudioState = 384;   // encoder width (d_model)
    int nAudioHead = 6;
    int nAudioLayer = 4;
    int nVocab = 51865;      // 51864 English-only, 51865 multilingual, 51866 large-v3
    int nTextCtx = 448;      // decoder positions
    int nTextState = 384;    // decoder width
    int nTextHead = 6;
    int nTextLayer = 4;

    bool isMultilingual() const { return nVocab >= 51865; }
    int languageCount() const { return nVocab - 51765 - (isMultilingual() ? 1 : 0); }

    // A check that the dimensions are sane (positive, heads divide widths, bounded sizes),
    // so that a lying header never drives a huge allocation.
    Result<void> validate() const;

    // Official sizes: tiny, tiny.en, base, base.en, small, small.en, medium, medium.en,
    // large-v1, large-v2, large-v3, large-v3-turbo (alias turbo); or "DxLxH" for a
    // custom width D, L layers (encoder and decoder) and H heads, multilingual vocabulary.
    static Result<WhisperConfig> fromName(std::string_view name);
    static std::vector<std::string> officialNames();
};

} // namespace hearsay
