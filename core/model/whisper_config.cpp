// Official Whisper sizes and dimension validation.
#include "core/model/whisper_config.h"

#include <cstdio>
#include <tuple>
#include <utility>

namespace hearsay {
namespace {

struct NamedSize {
    const char* name;
    int width, layers, heads, nVocab, nMels;
    int textLayers; // decoder layers (turbo has 4)
};

constexpr NamedSize kSizes[] = {
    {"tiny.en", 384, 4, 6, 51864, 80, 4},      {"tiny", 384, 4, 6, 51865, 80, 4},
    {"base.en", 512, 6, 8, 51864, 80, 6},      {"base", 512, 6, 8, 51865, 80, 6},
    {"small.en", 768, 12, 12, 51864, 80, 12},  {"small", 768, 12, 12, 51865, 80, 12},
    {"medium.en", 1024, 24, 16, 51864, 80, 24}, {"medium", 1024, 24, 16, 51865, 80, 24},
    {"large-v1", 1280, 32, 20, 51865, 80, 32}, {"large-v2", 1280, 32, 20, 51865, 80, 32},
    {"large-v3", 1280, 32, 20, 51866, 128, 32}, {"large-v3-turbo", 1280, 32, 20, 51866, 128, 4},
};

WhisperConfig fromSize(const NamedSize& s) {
    WhisperConfig c;
    c.nMels = s.nMels;
    c.nAudioCtx = 1500;
    c.nAudioState = s.width;
    c.nAudioHead = s.heads;
    c.nAudioLayer = s.layers;
    c.nVocab = s.nVocab;
    c.nTextCtx = 448;
    c.nTextState = s.width;
    c.nTextHead = s.heads;
    c.nTextLayer = s.textLayers;
    return c;
}

} // namespace

Result<void> WhisperConfig::validate() const {
    auto bad = [](const std::string& what) { return makeError("invalid model dimensions: " + what); };
    if (nMels != 80 && nMels != 128) return bad("n_mels is " + std::to_string(nMels) + ", expected 80 or 128");
    if (nAudioCtx <= 0 || nAudioCtx > 1500) return bad("n_audio_ctx is " + std::to_string(nAudioCtx) + ", expected 1..1500");
    if (nTextCtx <= 0 || nTextCtx > 448) return bad("n_text_ctx is " + std::to_string(nTextCtx) + ", expected 1..448");
    if (nVocab < 51864 || nVocab > 51866) return bad("n_vocab is " + std::to_string(nVocab) + ", expected 51864..51866");
    for (auto [name, width, heads] : {std::tuple{"audio", nAudioState, nAudioHead}, std::tuple{"text", nTextState, nTextHead}}) {
        if (width <= 0 || width > 8192) return bad(std::string("n_") + name + "_state is " + std::to_string(width));
        if (heads <= 0 || heads > 256 || width % heads != 0) {
            return bad(std::string("n_") + name + "_head is " + std::to_string(heads) + " for width " + std::to_string(width));
        }
    }
    if (nAudioLayer <= 0 || nAudioLayer > 128) return bad("n_audio_layer is " + std::to_string(nAudioLayer));
    if (nTextLayer <= 0 || nTextLayer > 128) return bad("n_text_layer is " + std::to_string(nTextLayer));
    return {};
}

Result<WhisperConfig> WhisperConfig::fromName(std::string_view name) {
    if (name == "turbo") name = "large-v3-turbo";
    if (name == "large") name = "large-v3";
    for (const auto& s : kSizes) {
        if (name == s.name) return fromSize(s);
    }
    int d = 0, l = 0, h = 0;
    char tail = 0;
    std::string text(name);
    if (std::sscanf(text.c_str(), "%dx%dx%d%c", &d, &l, &h, &tail) == 3) {
        WhisperConfig c = fromSize(NamedSize{"custom", d, l, h, 51865, 80, l});
        if (auto ok = c.validate(); !ok) return ok.error();
        return c;
    }
    std::string known;
    for (const auto& s : kSizes) known += std::string(known.empty() ? "" : ", ") + s.name;
    return makeError("unknown model size '" + text + "' (known: " + known + ", or DxLxH such as 64x2x2)");
}

std::vector<std::string> WhisperConfig::officialNames() {
    std::vector<std::string> names;
    for (const auto& s : kSizes) names.emplace_back(s.name);
    return names;
}

} // namespace hearsay
