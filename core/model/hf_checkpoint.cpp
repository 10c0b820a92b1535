// Hugging Face Whisper checkpoint directories: config.json, model.safetensors (or shards listed
// in model.safetensors.index.json), vocab.json or tokenizer.json, generation_config.json.
#include "core/model/model_loading.h"

#include "core/model/safetensors.h"
#include "core/text/tokenizer.h"
#include "core/text/vocabulary_directory.h"
#include "core/util/json_text.h"

#include <cmath>
#include <cstring>
#include <set>

namespace fs = std::filesystem;

namespace hearsay {
namespace {

using nlohmann::json;

Result<json> readJson(const fs::path& path) {
    auto doc = readJsonFile(path);
    if (!doc) return doc.error();
    if (!doc->is_object()) return makeError(path.string() + ": malformed JSON: expected an object at the top level");
    return doc;
}

// An integer JSON value within [lo, hi], or an error naming the file and key.
Result<int> intKey(const json& doc, const std::string& key, const fs::path& file, int lo, int hi) {
    if (!doc.contains(key)) return makeError(file.string() + ": missing key \"" + key + "\"");
    const json& v = doc[key];
    const double d = v.is_number() ? v.get<double>() : -1e300;
    if (!(d >= lo && d <= hi) || d != std::floor(d)) {
        return makeError(file.string() + ": \"" + key + "\" must be an integer in " + std::to_string(lo) + ".." +
                         std::to_string(hi) + ", found " + v.dump());
    }
    return int(d);
}

Result<WhisperConfig> readConfig(const fs::path& file) {
    auto doc = readJson(file);
    if (!doc) return doc.error();
    const json& j = doc.value();
    if (j.contains("model_type") && j["model_type"] != "whisper") {
        return makeError(file.string() + ": model_type is " + j["model_type"].dump() + ", expected \"whisper\"");
    }
    WhisperConfig c;
    constexpr int kBig = 1 << 20;
    struct Key {
        const char* name;
        int* field;
    };
    int dModel = 0;
    const Key keys[] = {{"num_mel_bins", &c.nMels},           {"max_source_positions", &c.nAudioCtx},
                        {"d_model", &dModel},                 {"encoder_attention_heads", &c.nAudioHead},
                        {"encoder_layers", &c.nAudioLayer},   {"vocab_size", &c.nVocab},
                        {"max_target_positions", &c.nTextCtx}, {"decoder_attention_heads", &c.nTextHead},
                        {"decoder_layers", &c.nTextLayer}};
    for (const auto& k : keys) {
        auto v = intKey(j, k.name, file, 1, kBig);
        if (!v) return v.error();
        *k.field = v.value();
    }
    c.nAudioState = dModel;
    c.nTextState = dModel;
    if (auto ok = c.validate(); !ok) return makeError(file.string() + ": " + ok.message());
    for (const char* ffn : {"encoder_ffn_dim", "decoder_ffn_dim"}) {
        if (!j.contains(ffn)) continue;
        auto v = intKey(j, ffn, file, 1, kBig);
        if (!v) return v.error();
        if (v.value() != 4 * dModel) {
            return makeError(file.string() + ": " + ffn + " is " + std::to_string(v.value()) + ", expected 4 * d_model = " +
                             std::to_string(4 * dModel) + " (Whisper's MLP width)");
        }
    }
    return c;
}

// doc[key], which the caller has seen is there.
Result<std::vector<int>> tokenList(const json& doc, const char* key, const fs::path& file, int nVocab) {
    std::vector<int> out;
    const json& v = doc[key];
    if (!v.is_array()) return makeError(file.string() + ": \"" + key + "\" must be an array of token ids, found " + v.dump());
    for (const json& id : v) {
        const int64_t n = id.is_number_integer() ? id.get<int64_t>() : -1;
        if (n < 0 || n >= nVocab) {
            return makeError(file.string() + ": \"" + key + "\" holds " + id.dump() + ", not a token id below " + std::to_string(nVocab));
        }
        out.push_back(int(n));
    }
    return out;
}

Result<GenerationSettings> readGenerationConfig(const fs::path& dir, const WhisperConfig& config) {
    GenerationSettings g = derivedGenerationSettings(config);
    const fs::path file = dir / "generation_config.json";
    if (!fs::exists(file)) return g;
    auto doc = readJson(file);
    if (!doc) return doc.error();
    const json& j = doc.value();
    g.fromGenerationConfig = true;
    if (j.contains("suppress_tokens")) {
        auto v = tokenList(j, "suppress_tokens", file, config.nVocab);
        if (!v) return v.error();
        g.suppressTokens = std::move(v).value();
    }
    if (j.contains("begin_suppress_tokens")) {
        auto v = tokenList(j, "begin_suppress_tokens", file, config.nVocab);
        if (!v) return v.error();
        g.beginSuppressTokens = std::move(v).value();
    }
    if (j.contains("alignment_heads")) {
        g.alignmentHeads.clear();
        const json& heads = j["alignment_heads"];
        if (!heads.is_array()) return makeError(file.string() + ": \"alignment_heads\" must be an array of [layer, head] pairs");
        for (const json& pair : heads) {
            const bool isPair = pair.is_array() && pair.size() == 2;
            const int64_t layer = isPair && pair[0].is_number_integer() ? pair[0].get<int64_t>() : -1;
            const int64_t head = isPair && pair[1].is_number_integer() ? pair[1].get<int64_t>() : -1;
            if (layer < 0 || layer >= config.nTextLayer || head < 0 || head >= config.nTextHead) {
                return makeError(file.string() + ": alignment head " + pair.dump() + " is not a [layer, head] of this model (" +
                                 std::to_string(config.nTextLayer) + " layers, " + std::to_string(config.nTextHead) + " heads)");
            }
            g.alignmentHeads.emplace_back(int(layer), int(head));
        }
    }
    if (j.contains("lang_to_id")) {
        g.languageTokens.clear();
        if (!j["lang_to_id"].is_object()) return makeError(file.string() + ": \"lang_to_id\" must be an object");
        for (const auto& [lang, id] : j["lang_to_id"].items()) {
            const int64_t n = id.is_number_integer() ? id.get<int64_t>() : -1;
            if (n < 0 || n >= config.nVocab) {
                return makeError(file.string() + ": lang_to_id[" + json(lang).dump() + "] is " + id.dump() + ", not a token id");
            }
            g.languageTokens[lang] = int(n);
        }
    }
    if (j.contains("no_timestamps_token_id")) {
        auto v = intKey(j, "no_timestamps_token_id", file, 0, config.nVocab - 1);
        if (!v) return v.error();
        g.noTimestampsTokenId = v.value();
    }
    if (j.contains("max_initial_timestamp_index")) {
        auto v = intKey(j, "max_initial_timestamp_index", file, 0, 1500);
        if (!v) return v.error();
        g.maxInitialTimestampIndex = v.value();
    }
    return g;
}

// Opens model.safetensors, or every shard named by model.safetensors.index.json.
Result<void> readTensors(const fs::path& dir, WhisperModel::Parts& parts, std::map<std::string, FoundTensor>& out) {
    std::map<std::string, fs::path> expectedShard;  // tensor -> shard file (sharded checkpoints)
    std::vector<fs::path> files;
    const fs::path single = dir / "model.safetensors";
    const fs::path index = dir / "model.safetensors.index.json";
    if (fs::exists(single)) {
        files.push_back(single);
    } else if (fs::exists(index)) {
        auto doc = readJson(index);
        if (!doc) return doc.error();
        const json map = doc->value("weight_map", json());
        if (!map.is_object() || map.empty()) return makeError(index.string() + ": missing or empty \"weight_map\"");
        std::set<std::string> shards;
        for (const auto& [name, shard] : map.items()) {
            const std::string s = shard.is_string() ? shard.get<std::string>() : std::string();
            if (s.empty() || s.find('/') != std::string::npos || s.find('\\') != std::string::npos || s == "." || s == "..") {
                return makeError(index.string() + ": tensor '" + name + "' maps to an invalid shard name " + shard.dump());
            }
            expectedShard[name] = dir / s;
            if (shards.insert(s).second) files.push_back(dir / s);
        }
    } else {
        return makeError(dir.string() + ": no model.safetensors or model.safetensors.index.json "
                         "(only safetensors checkpoints are supported, not pytorch_model.bin)");
    }
    for (const auto& f : files) {
        auto st = openSafetensors(f);
        if (!st) return st.error();
        parts.files.push_back(st->file);
        for (auto& [name, view] : st->tensors) {
            if (!expectedShard.empty()) {
                auto it = expectedShard.find(name);
                if (it == expectedShard.end() || it->second != f) continue;  // not this shard's per the index
            }
            const std::string key = name.rfind("model.", 0) == 0 || name == "proj_out.weight" ? name : "model." + name;
            if (out.count(key)) return makeError(f.string() + ": tensor '" + name + "' appears twice (with and without the model. prefix, or in two shards)");
            out[key] = FoundTensor{view, f.string()};
        }
    }
    for (const auto& [name, shard] : expectedShard) {
        const std::string key = name.rfind("model.", 0) == 0 || name == "proj_out.weight" ? name : "model." + name;
        if (!out.count(key)) return makeError(shard.string() + ": tensor '" + name + "' listed in model.safetensors.index.json is not in this shard");
    }
    return {};
}

} // namespace

Result<WhisperModel::Parts> loadHuggingFaceDirectory(const fs::path& dir, const LoadOptions& options) {
    WhisperModel::Parts parts;
    parts.format = ModelFormat::HuggingFace;
    parts.path = dir;
    if (!fs::exists(dir / "config.json")) return makeError(dir.string() + ": not a Hugging Face checkpoint (no config.json)");
    auto config = readConfig(dir / "config.json");
    if (!config) return config.error();
    parts.config = config.value();

    std::map<std::string, FoundTensor> tensors;
    if (auto ok = readTensors(dir, parts, tensors); !ok) return ok.error();

    // proj_out is tied to the token embedding: accept it only when it is the same data.
    if (auto it = tensors.find("proj_out.weight"); it != tensors.end()) {
        auto emb = tensors.find("model.decoder.embed_tokens.weight");
        const TensorView& p = it->second.view;
        if (emb == tensors.end() || emb->second.view.shape != p.shape || emb->second.view.dtype != p.dtype ||
            std::memcmp(emb->second.view.data, p.data, p.bytes) != 0) {
            return makeError(it->second.file + ": tensor 'proj_out.weight' differs from model.decoder.embed_tokens.weight; "
                             "Whisper ties the output projection to the token embedding");
        }
        tensors.erase(it);
    }
    if (auto ok = bindWeights(std::move(tensors), false, options, parts); !ok) return ok.error();

    auto vocab = readDirectoryVocabulary(dir, parts.config.nVocab);
    if (!vocab) return vocab.error();
    if (vocab.value()) parts.vocabulary = std::move(vocab.value()->tokens);  // none: a weights-only checkpoint
    auto generation = readGenerationConfig(dir, parts.config);
    if (!generation) return generation.error();
    parts.generation = std::move(generation).value();
    return parts;
}

} // namespace hearsay
