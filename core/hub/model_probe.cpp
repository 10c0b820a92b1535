#include "core/hub/model_probe.h"

#include "core/model/ctranslate2_file.h"
#include "core/model/ggml_file.h"
#include "core/model/safetensors.h"
#include "core/util/json_text.h"

#include <cstdio>

namespace hearsay::hub {
namespace fs = std::filesystem;
namespace {

std::string sizeNameOf(const WhisperConfig& c) {
    for (const auto& name : WhisperConfig::officialNames()) {
        auto o = WhisperConfig::fromName(name);
        if (!o) continue;
        const auto& w = o.value();
        if (w.nMels == c.nMels && w.nAudioState == c.nAudioState && w.nAudioLayer == c.nAudioLayer &&
            w.nTextLayer == c.nTextLayer && w.nVocab == c.nVocab)
            return name;
    }
    return std::to_string(c.nAudioState) + "x" + std::to_string(c.nAudioLayer) + "/" + std::to_string(c.nTextLayer) +
           (c.isMultilingual() ? "" : ".en");
}

uint64_t bytesOf(const fs::path& p) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return fs::file_size(p, ec);
    uint64_t total = 0;
    for (auto it = fs::directory_iterator(p, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        std::error_code e2;
        if (fs::is_regular_file(it->path(), e2)) total += fs::file_size(it->path(), e2);
    }
    return total;
}

bool hasVocabulary(const fs::path& dir) {
    for (const char* f : {"vocabulary.txt", "vocabulary.json", "tokenizer.json", "vocab.json"}) {
        std::error_code ec;
        if (fs::is_regular_file(dir / f, ec)) return true;
    }
    return false;
}

Result<ProbedModel> probeCTranslate2(const fs::path& dir) {
    auto file = openCTranslate2(dir / "model.bin");
    if (!file) return file.error();
    const auto& f = file.value();
    if (f.spec != "WhisperSpec")
        return makeError((dir / "model.bin").string() + ": a CTranslate2 " + (f.spec.empty() ? "v1" : f.spec) +
                         " model, not Whisper");
    if (!hasVocabulary(dir)) return makeError(dir.string() + ": no vocabulary.txt, vocabulary.json or tokenizer.json");
    WhisperConfig c;
    if (auto* conv = f.find("encoder/conv1/weight"); conv && conv->shape.size() == 3) {
        c.nAudioState = int(conv->shape[0]);
        c.nMels = int(conv->shape[1]);
    }
    if (auto* emb = f.find("decoder/embeddings/weight"); emb && emb->shape.size() == 2) c.nVocab = int(emb->shape[0]);
    auto layers = [&](const char* side) {
        int n = 0;
        while (f.find(std::string(side) + "/layer_" + std::to_string(n) + "/ffn/layer_norm/gamma")) ++n;
        return n;
    };
    c.nAudioLayer = layers("encoder");
    c.nTextLayer = layers("decoder");
    if (c.nAudioLayer == 0 || c.nTextLayer == 0)
        return makeError((dir / "model.bin").string() + ": no encoder or decoder layers");
    return ProbedModel{dir, ModelFormat::CTranslate2, sizeNameOf(c), bytesOf(dir)};
}

Result<ProbedModel> probeHuggingFace(const fs::path& dir) {
    auto text = readTextFile(dir / "config.json", 1 << 20);
    if (!text) return text.error();
    auto json = parseJson(text.value());
    if (!json) return json.error().prefixed((dir / "config.json").string() + ": ");
    const nlohmann::json& j = json.value();
    const nlohmann::json modelType = j.is_object() ? j.value("model_type", nlohmann::json()) : nlohmann::json();
    if (modelType != "whisper")
        return makeError((dir / "config.json").string() + ": not a Whisper checkpoint (model_type " + modelType.dump() + ")");
    std::error_code ec;
    if (fs::exists(dir / "model.safetensors", ec)) {
        auto st = openSafetensors(dir / "model.safetensors");
        if (!st) return st.error();
        if (st->tensors.empty()) return makeError((dir / "model.safetensors").string() + ": no tensors");
    } else if (fs::exists(dir / "model.safetensors.index.json", ec)) {
        auto index = readTextFile(dir / "model.safetensors.index.json", 16 << 20);
        if (!index) return index.error();
        auto ij = parseJson(index.value());
        if (!ij) return ij.error().prefixed((dir / "model.safetensors.index.json").string() + ": ");
        const nlohmann::json map = ij->is_object() ? ij->value("weight_map", nlohmann::json()) : nlohmann::json();
        if (map.is_object()) {
            for (const nlohmann::json& shard : map) {
                const std::string name = shard.is_string() ? shard.get<std::string>() : std::string();
                if (!fs::is_regular_file(dir / name, ec)) return makeError(dir.string() + ": shard " + name + " is missing");
            }
        }
    } else {
        return makeError(dir.string() + ": no model.safetensors (PyTorch-only checkpoints are not loaded)");
    }
    // Only the size's name comes from these (the load checks them); a key that is absent or not
    // an integer reads as the fallback.
    auto integer = [&j](const char* key, int fallback) {
        auto it = j.find(key);
        return it != j.end() && it->is_number_integer() ? int(it->get<int64_t>()) : fallback;
    };
    WhisperConfig c;
    c.nMels = integer("num_mel_bins", 80);
    c.nAudioState = integer("d_model", 0);
    c.nAudioLayer = integer("encoder_layers", 0);
    c.nTextLayer = integer("decoder_layers", 0);
    c.nVocab = integer("vocab_size", 0);
    return ProbedModel{dir, ModelFormat::HuggingFace, sizeNameOf(c), bytesOf(dir)};
}

Result<ProbedModel> probeGgml(const fs::path& file) {
    auto g = openGgml(file);
    if (!g) return g.error();
    if (g->tensors.empty()) return makeError(file.string() + ": a ggml vocabulary file without weights");
    return ProbedModel{file, ModelFormat::Ggml, sizeNameOf(g->config), bytesOf(file)};
}

} // namespace

bool looksLikeModel(const fs::path& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec))
        return fs::exists(path / "model.bin", ec) || fs::exists(path / "config.json", ec);
    return path.extension() == ".bin";
}

Result<ProbedModel> probeModel(const fs::path& path) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        if (fs::is_symlink(fs::symlink_status(path, ec)))
            return makeError(path.string() + ": broken symbolic link (its target is missing)");
        return makeError(path.string() + ": does not exist");
    }
    if (fs::is_directory(status)) {
        for (auto it = fs::directory_iterator(path, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
            std::error_code e2;
            if (it->is_symlink(e2) && !fs::exists(it->path(), e2))
                return makeError(it->path().string() + ": broken symbolic link (its target " +
                                 fs::read_symlink(it->path(), e2).string() + " is missing)");
        }
        if (fs::exists(path / "model.bin", ec)) return probeCTranslate2(path);
        if (fs::exists(path / "config.json", ec)) return probeHuggingFace(path);
        return makeError(path.string() + ": neither a CTranslate2 model (model.bin) nor a Hugging Face checkpoint (config.json)");
    }
    return probeGgml(path);
}

} // namespace hearsay::hub
