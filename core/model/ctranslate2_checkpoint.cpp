// CTranslate2 Whisper directories (what faster-whisper, WhisperX and Buzz keep in the Hugging Face
// cache): model.bin (spec "WhisperSpec"), config.json (alignment heads, language ids, suppressed
// ids) and the vocabulary (vocabulary.json, vocabulary.txt or tokenizer.json). The variables are
// renamed to the Hugging Face names and bound by the shared binding (whisper_tensors.h); fused
// projections (self-attention q|k|v, cross-attention k|v) become row views of the same memory.
// float32/16 and bfloat16 stay in the map; int8 (per-row scale) and int16 (one scale) are
// dequantised to float32 at load.
#include "core/model/ctranslate2_file.h"
#include "core/model/ctranslate2_whisper_spec.h"
#include "core/model/model_loading.h"
#include "core/text/tokenizer.h"
#include "core/text/vocabulary_directory.h"
#include "core/util/json_text.h"

#include <cmath>
#include <cstring>
#include <set>

namespace fs = std::filesystem;

namespace hearsay {
namespace {

bool isScaleName(const std::string& name) { return name.size() > 6 && name.compare(name.size() - 6, 6, "_scale") == 0; }

class Ct2Binder {
public:
    Ct2Binder(const CTranslate2File& file, WhisperModel::Parts& parts) : m_file(file), m_parts(parts), m_path(file.file->path().string()) {}

    // The variable a name refers to (through an alias), or an error naming what is missing.
    Result<const Ct2Variable*> variable(const std::string& name, const char* what) {
        const Ct2Variable* v = m_file.find(name);
        if (!v) return makeError(m_path + ": variable '" + name + "' (" + what + ") is missing");
        m_used.insert(v->name);
        return v;
    }

    // Rows [part, part + 1) of `parts` equal blocks of a variable, as a float view (in place for
    // float types, dequantised for int8/int16).
    Result<TensorView> rows(const Ct2Source& source) {
        auto var = variable(source.variable, "a Whisper weight");
        if (!var) return var.error();
        const Ct2Variable& v = *var.value();
        if (v.shape.empty()) return makeError(m_path + ": variable '" + v.name + "' is a scalar, expected a tensor");
        if (v.shape[0] % source.parts != 0) {
            return makeError(m_path + ": variable '" + v.name + "' has " + std::to_string(v.shape[0]) +
                             " rows, not divisible into its " + std::to_string(source.parts) + " fused projections");
        }
        const int64_t rowCount = v.shape[0] / source.parts;
        const int64_t rowElements = v.shape[0] ? v.elements() / v.shape[0] : 0;
        const int64_t firstRow = rowCount * source.part;
        TensorView view;
        view.name = source.parts == 1 ? v.name
                                      : v.name + "[" + std::to_string(firstRow) + ":" + std::to_string(firstRow + rowCount) + "]";
        view.shape = v.shape;
        view.shape[0] = rowCount;
        const size_t elementBytes = ct2TypeBytes(v.type);
        switch (v.type) {
        case Ct2Type::F32:
        case Ct2Type::F16:
        case Ct2Type::BF16:
            view.dtype = v.type == Ct2Type::F32 ? DType::F32 : v.type == Ct2Type::F16 ? DType::F16 : DType::BF16;
            view.data = v.data + size_t(firstRow * rowElements) * elementBytes;
            view.bytes = size_t(rowCount * rowElements) * elementBytes;
            return view;
        case Ct2Type::I8:
        case Ct2Type::I16: return dequantised(v, firstRow, rowCount, rowElements, std::move(view));
        case Ct2Type::I32: break;
        }
        return makeError(m_path + ": variable '" + v.name + "' is " + std::string(ct2TypeName(v.type)) +
                         ", expected float32, float16, bfloat16, int8 or int16");
    }

    // The scalars: each known one within its allowed values; an unknown one is an error (a newer
    // or different spec whose meaning Hearsay would silently ignore).
    Result<void> checkScalars() {
        for (const auto& [name, v] : m_file.variables) {
            // int16 quantisation scales are scalars too; their weights use and check them.
            if (!v.shape.empty() || isScaleName(name)) continue;
            const Ct2Scalar* known = nullptr;
            for (const auto& k : whisperCt2Scalars())
                if (name == k.name) known = &k;
            if (!known) return makeError(m_path + ": unknown setting '" + name + "': not part of a Whisper model Hearsay runs");
            m_used.insert(name);
            if (!known->required) continue;
            const auto value = v.integerScalar();
            if (!value || *value != *known->required) {
                return makeError(m_path + ": '" + name + "' (" + known->meaning + ") is " +
                                 (value ? std::to_string(*value) : std::string(ct2TypeName(v.type))) + ", Whisper has " +
                                 std::to_string(*known->required));
            }
        }
        return {};
    }

    Result<int> heads(const char* name) {
        auto v = variable(name, "the number of attention heads");
        if (!v) return v.error();
        const auto value = v.value()->integerScalar();
        if (!value || *value < 1 || *value > 4096) {
            return makeError(m_path + ": '" + std::string(name) + "' must be a positive integer scalar");
        }
        return int(*value);
    }

    // Variables neither bound nor known: an error naming the first.
    Result<void> checkAllUsed() const {
        for (const auto& [name, v] : m_file.variables) {
            if (m_used.count(name)) continue;
            // A scale is used through its weight; one whose weight is not quantised is reported.
            if (isScaleName(name) && m_used.count(name.substr(0, name.size() - 6))) continue;
            TensorView shape;
            shape.shape = v.shape;
            return makeError(m_path + ": unexpected variable '" + name + "' " + shape.shapeString() +
                             ": not part of a Whisper model with these dimensions");
        }
        return {};
    }

private:
    Result<TensorView> dequantised(const Ct2Variable& v, int64_t firstRow, int64_t rowCount, int64_t rowElements, TensorView view) {
        // ctranslate2 quantises as q = round(w · scale): int8 with one scale per row (127 / the
        // row's max |w|), int16 with one scale for the tensor; so w = q / scale.
        const std::string scaleName = v.name + "_scale";
        const Ct2Variable* scale = m_file.find(scaleName);
        if (!scale) return makeError(m_path + ": " + std::string(ct2TypeName(v.type)) + " variable '" + v.name + "' has no '" + scaleName + "'");
        const bool perRow = v.type == Ct2Type::I8;
        const int64_t expectedScales = perRow ? v.shape[0] : 1;
        if (scale->elements() != expectedScales ||
            (scale->type != Ct2Type::F32 && scale->type != Ct2Type::F16 && scale->type != Ct2Type::BF16)) {
            return makeError(m_path + ": '" + scaleName + "' must hold " + std::to_string(expectedScales) +
                             " float scale(s), found " + std::to_string(scale->elements()) + " " + std::string(ct2TypeName(scale->type)));
        }
        TensorView scaleView;
        scaleView.dtype = scale->type == Ct2Type::F32 ? DType::F32 : scale->type == Ct2Type::F16 ? DType::F16 : DType::BF16;
        scaleView.shape = {scale->elements()};
        scaleView.data = scale->data;
        scaleView.bytes = scale->bytes;
        std::vector<float> scales(size_t(scale->elements()));
        convertToFloat(scaleView, scales.data());

        auto buffer = std::make_shared<std::vector<float>>(size_t(rowCount * rowElements));
        float* out = buffer->data();
        for (int64_t r = 0; r < rowCount; ++r) {
            const float s = scales[size_t(perRow ? firstRow + r : 0)];
            if (!(std::isfinite(s) && s != 0.0f)) {
                return makeError(m_path + ": '" + scaleName + "' holds " + std::to_string(s) + " for row " +
                                 std::to_string(firstRow + r) + " (a scale must be finite and non-zero)");
            }
            const size_t base = size_t((firstRow + r) * rowElements);
            for (int64_t i = 0; i < rowElements; ++i) {
                float q;
                if (v.type == Ct2Type::I8) {
                    int8_t x;
                    std::memcpy(&x, v.data + base + size_t(i), 1);
                    q = float(x);
                } else {
                    int16_t x;
                    std::memcpy(&x, v.data + 2 * (base + size_t(i)), 2);
                    q = float(x);
                }
                out[size_t(r * rowElements + i)] = q / s;
            }
        }
        view.dtype = DType::F32;
        view.data = reinterpret_cast<const std::byte*>(buffer->data());
        view.bytes = buffer->size() * sizeof(float);
        m_parts.ownedBuffers.push_back(std::move(buffer));
        m_used.insert(scale->name);
        return view;
    }

    const CTranslate2File& m_file;
    WhisperModel::Parts& m_parts;
    std::string m_path;
    std::set<std::string> m_used;
};

// Layers present: one more than the highest N in "<stack>/layer_N/...".
int countLayers(const CTranslate2File& file, const std::string& stack) {
    int count = 0;
    const std::string prefix = stack + "/layer_";
    for (const auto& [name, v] : file.variables) {
        if (name.rfind(prefix, 0) != 0) continue;
        const size_t end = name.find('/', prefix.size());
        const std::string digits = name.substr(prefix.size(), end - prefix.size());
        if (digits.empty() || digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
        count = std::max(count, std::stoi(digits) + 1);
    }
    return count;
}

// Rows of a fused bias that Whisper has no parameter for (the key projections): zero, or the
// checkpoint is not a Whisper model.
Result<void> checkZeroBias(const CTranslate2File& file, const std::string& variable, int part, int parts) {
    const Ct2Variable* v = file.find(variable);
    if (!v) return {};  // a fused projection without bias at all
    TensorView view;
    view.dtype = v->type == Ct2Type::F32 ? DType::F32 : v->type == Ct2Type::F16 ? DType::F16 : DType::BF16;
    if (v->type != Ct2Type::F32 && v->type != Ct2Type::F16 && v->type != Ct2Type::BF16) {
        return makeError(file.file->path().string() + ": bias '" + variable + "' is " + std::string(ct2TypeName(v->type)));
    }
    view.shape = {v->elements()};
    view.data = v->data;
    view.bytes = v->bytes;
    std::vector<float> values(size_t(v->elements()));
    convertToFloat(view, values.data());
    const size_t n = values.size() / size_t(parts);
    for (size_t i = n * size_t(part); i < n * size_t(part + 1); ++i) {
        if (values[i] != 0.0f) {
            return makeError(file.file->path().string() + ": bias '" + variable + "' has a non-zero key-projection part (" +
                             std::to_string(values[i]) + " at row " + std::to_string(i) +
                             "); Whisper's key projections have no bias");
        }
    }
    return {};
}

// doc[key], which the caller has seen is there.
Result<std::vector<int>> idList(const nlohmann::json& doc, const char* key, const fs::path& file, int nVocab) {
    std::vector<int> out;
    const nlohmann::json& v = doc[key];
    if (!v.is_array()) return makeError(file.string() + ": \"" + key + "\" must be an array of token ids, found " + v.dump());
    for (const nlohmann::json& id : v) {
        const int64_t n = id.is_number_integer() ? id.get<int64_t>() : -1;
        if (n < 0 || n >= nVocab) {
            return makeError(file.string() + ": \"" + key + "\" holds " + id.dump() + ", not a token id below " + std::to_string(nVocab));
        }
        out.push_back(int(n));
    }
    return out;
}

// config.json of a CTranslate2 Whisper model (optional, as for ctranslate2 itself).
Result<GenerationSettings> readCt2Config(const fs::path& dir, const WhisperConfig& config) {
    GenerationSettings g = derivedGenerationSettings(config);
    const fs::path file = dir / "config.json";
    std::error_code ec;
    if (!fs::exists(file, ec)) return g;
    auto doc = readJsonFile(file);
    if (!doc) return doc.error();
    const nlohmann::json& j = doc.value();
    if (!j.is_object()) return makeError(file.string() + ": malformed JSON: expected an object at the top level");
    g.fromGenerationConfig = true;
    if (j.contains("suppress_ids")) {
        auto v = idList(j, "suppress_ids", file, config.nVocab);
        if (!v) return v.error();
        g.suppressTokens = std::move(v).value();
    }
    if (j.contains("suppress_ids_begin")) {
        auto v = idList(j, "suppress_ids_begin", file, config.nVocab);
        if (!v) return v.error();
        g.beginSuppressTokens = std::move(v).value();
    }
    if (j.contains("alignment_heads")) {
        g.alignmentHeads.clear();
        const nlohmann::json& heads = j["alignment_heads"];
        if (!heads.is_array()) return makeError(file.string() + ": \"alignment_heads\" must be an array of [layer, head] pairs");
        for (const nlohmann::json& pair : heads) {
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
    // The converter lists language ids even for English-only models (whose vocabulary has no
    // language tokens); they mean something for multilingual ones only.
    if (j.contains("lang_ids") && config.isMultilingual()) {
        auto ids = idList(j, "lang_ids", file, config.nVocab);
        if (!ids) return ids.error();
        const SpecialTokens special = SpecialTokens::forVocabularySize(config.nVocab);
        g.languageTokens.clear();
        for (int id : ids.value()) {
            const int index = id - special.firstLanguage;
            if (index < 0 || index >= special.languageCount) {
                return makeError(file.string() + ": \"lang_ids\" holds " + std::to_string(id) + ", which is not a language token (" +
                                 std::to_string(special.firstLanguage) + ".." +
                                 std::to_string(special.firstLanguage + special.languageCount - 1) + ")");
            }
            g.languageTokens["<|" + std::string(whisperLanguages()[size_t(index)].code) + "|>"] = id;
        }
    }
    return g;
}

} // namespace

Result<WhisperModel::Parts> loadCTranslate2Directory(const fs::path& dir, const LoadOptions& options) {
    const fs::path binary = dir / "model.bin";
    auto opened = openCTranslate2(binary);
    if (!opened) return opened.error();
    const CTranslate2File& file = opened.value();
    const std::string path = binary.string();
    if (file.binaryVersion >= 2 && file.spec != kWhisperSpecName) {
        return makeError(path + ": a CTranslate2 \"" + file.spec + "\" model, not a Whisper model (\"WhisperSpec\")");
    }
    if (file.specRevision > kWhisperSpecRevision) {
        return makeError(path + ": WhisperSpec revision " + std::to_string(file.specRevision) +
                         " is newer than the revisions Hearsay reads (up to " + std::to_string(kWhisperSpecRevision) + ")");
    }

    WhisperModel::Parts parts;
    parts.format = ModelFormat::CTranslate2;
    parts.path = dir;
    parts.files.push_back(file.file);
    Ct2Binder binder(file, parts);
    if (auto ok = binder.checkScalars(); !ok) return ok.error();

    // Dimensions, from the shapes (CTranslate2 keeps no separate hyper-parameters).
    auto shapeOf = [&](const char* name, size_t rank) -> Result<std::vector<int64_t>> {
        const Ct2Variable* v = file.find(name);
        if (!v) return makeError(path + ": variable '" + std::string(name) + "' is missing: not a Whisper model.bin");
        if (v->shape.size() != rank) {
            return makeError(path + ": variable '" + std::string(name) + "' has rank " + std::to_string(v->shape.size()) +
                             ", expected " + std::to_string(rank));
        }
        return v->shape;
    };
    auto conv1 = shapeOf("encoder/conv1/weight", 3);
    if (!conv1) return conv1.error();
    auto audioPositions = shapeOf("encoder/position_encodings/encodings", 2);
    if (!audioPositions) return audioPositions.error();
    auto embeddings = shapeOf(kCt2Embeddings, 2);
    if (!embeddings) return embeddings.error();
    auto textPositions = shapeOf("decoder/position_encodings/encodings", 2);
    if (!textPositions) return textPositions.error();
    auto encoderHeads = binder.heads("encoder/num_heads");
    if (!encoderHeads) return encoderHeads.error();
    auto decoderHeads = binder.heads("decoder/num_heads");
    if (!decoderHeads) return decoderHeads.error();

    WhisperConfig& c = parts.config;
    auto narrow = [](int64_t v) { return v > (int64_t(1) << 30) ? -1 : int(v); };
    c.nAudioState = narrow(conv1.value()[0]);
    c.nTextState = narrow(embeddings.value()[1]);
    c.nMels = narrow(conv1.value()[1]);
    c.nAudioCtx = narrow(audioPositions.value()[0]);
    c.nTextCtx = narrow(textPositions.value()[0]);
    c.nVocab = narrow(embeddings.value()[0]);
    c.nAudioHead = encoderHeads.value();
    c.nTextHead = decoderHeads.value();
    c.nAudioLayer = countLayers(file, "encoder");
    c.nTextLayer = countLayers(file, "decoder");
    if (auto ok = c.validate(); !ok) return makeError(path + ": " + ok.message());

    // The output projection is tied to the token embedding: an alias of it, or a copy.
    if (const auto alias = file.aliases.find(kCt2ProjectionAlias); alias != file.aliases.end()) {
        if (alias->second != kCt2Embeddings) {
            return makeError(path + ": decoder/projection/weight is an alias of '" + alias->second +
                             "'; Whisper ties the output projection to the token embedding");
        }
    } else if (const auto it = file.variables.find(kCt2ProjectionAlias); it != file.variables.end()) {
        const Ct2Variable& p = it->second;
        const Ct2Variable& e = file.variables.at(kCt2Embeddings);
        if (p.shape != e.shape || p.type != e.type || std::memcmp(p.data, e.data, p.bytes) != 0) {
            return makeError(path + ": decoder/projection/weight differs from decoder/embeddings/weight; Whisper ties the "
                                    "output projection to the token embedding");
        }
        auto used = binder.variable(kCt2ProjectionAlias, "the output projection");
        (void)used;
    }
    if (file.find("decoder/projection/bias")) {
        if (auto ok = checkZeroBias(file, "decoder/projection/bias", 0, 1); !ok) {
            return makeError(path + ": decoder/projection/bias is not zero; Whisper's output projection has no bias");
        }
        auto used = binder.variable("decoder/projection/bias", "the output projection's bias");
        (void)used;
    }

    for (const Ct2ZeroRows& rows : whisperCt2KeyBiasRows(c.nAudioLayer, c.nTextLayer)) {
        if (auto ok = checkZeroBias(file, rows.variable, rows.part, rows.parts); !ok) return ok.error();
    }

    std::map<std::string, FoundTensor> tensors;
    for (const auto& [hfName, source] : whisperCt2Sources(c.nAudioLayer, c.nTextLayer)) {
        auto view = binder.rows(source);
        if (!view) return view.error();
        tensors[hfName] = FoundTensor{std::move(view).value(), path};
    }
    if (auto ok = binder.checkAllUsed(); !ok) return ok.error();
    if (auto ok = bindWeights(std::move(tensors), false, options, parts); !ok) return ok.error();

    auto vocab = readDirectoryVocabulary(dir, c.nVocab);
    if (!vocab) return vocab.error();
    if (!vocab.value()) {
        return makeError(dir.string() + ": no vocabulary.txt, vocabulary.json or tokenizer.json beside model.bin "
                                        "(a CTranslate2 model needs its vocabulary)");
    }
    parts.vocabulary = std::move(vocab.value()->tokens);
    auto generation = readCt2Config(dir, c);
    if (!generation) return generation.error();
    parts.generation = std::move(generation).value();
    return parts;
}

} // namespace hearsay
