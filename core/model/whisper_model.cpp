// WhisperModel: format detection, the shared tensor binding and validation.
#include "core/model/whisper_model.h"

#include "core/model/ggml_file.h"
#include "core/model/model_loading.h"
#include "core/text/tokenizer.h"
#include "core/model/whisper_tensors.h"

#include <cstring>
#include <fstream>

namespace hearsay {
namespace {

std::string allowedDtypes(const TensorSpec& spec) {
    std::string s = "f32, f16 or bf16";
    if (dtypeAllowed(spec, DType::Q8_0)) s = "f32, f16, bf16, q4_0, q4_1, q5_0, q5_1 or q8_0";
    return s;
}

bool startsWithGgmlMagic(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    uint32_t magic = 0;
    in.read(reinterpret_cast<char*>(&magic), sizeof magic);
    return in && magic == kGgmlMagic;
}

std::string indexString(const std::vector<int64_t>& shape, int64_t flat) {
    std::vector<int64_t> idx(shape.size());
    for (size_t i = shape.size(); i-- > 0;) {
        idx[i] = flat % shape[i];
        flat /= shape[i];
    }
    std::string s = "[";
    for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
    return s + "]";
}

} // namespace

const char* modelFormatName(ModelFormat format) {
    switch (format) {
    case ModelFormat::HuggingFace: return "Hugging Face checkpoint";
    case ModelFormat::Ggml: return "whisper.cpp ggml file";
    case ModelFormat::CTranslate2: return "CTranslate2 model";
    }
    return "model";
}

WhisperModel::WhisperModel(Parts parts)
    : m_config(parts.config), m_weights(std::move(parts.weights)), m_format(parts.format), m_path(std::move(parts.path)),
      m_vocabulary(std::make_shared<const TokenTable>(parts.vocabulary)), m_melFilters(std::move(parts.melFilters)),
      m_generation(std::move(parts.generation)), m_files(std::move(parts.files)),
      m_ownedBuffers(std::move(parts.ownedBuffers)), m_weightBytes(parts.weightBytes) {}

Result<std::shared_ptr<const WhisperModel>> WhisperModel::load(const std::filesystem::path& path) {
    return load(path, LoadOptions{});
}

Result<std::shared_ptr<const WhisperModel>> WhisperModel::load(const std::filesystem::path& path, const LoadOptions& options) {
    std::error_code ec;
    auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) return makeError("cannot open model " + path.string() + ": no such file or directory");
    // A file inside a checkpoint directory stands for the directory; a directory is CTranslate2's
    // when it has a model.bin (that is not a ggml file), else Hugging Face's.
    const std::string name = path.filename().string();
    const bool inDirectory = name == "config.json" || name == "model.safetensors.index.json" ||
                             path.extension() == ".safetensors" || (name == "model.bin" && !startsWithGgmlMagic(path));
    std::filesystem::path dir;
    if (std::filesystem::is_directory(status)) dir = path;
    else if (inDirectory) dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
    Result<Parts> parts = makeError("");
    if (dir.empty()) {
        parts = loadGgmlFile(path, options);
    } else if (std::filesystem::is_regular_file(dir / "model.bin", ec) && !startsWithGgmlMagic(dir / "model.bin")) {
        parts = loadCTranslate2Directory(dir, options);
    } else {
        parts = loadHuggingFaceDirectory(dir, options);
    }
    if (!parts) return parts.error();
    auto model = std::make_shared<const WhisperModel>(std::move(parts).value());
    model->releaseResidentPages();  // the finite-value scan read every weight
    return std::shared_ptr<const WhisperModel>(std::move(model));
}

void WhisperModel::releaseResidentPages() const {
    for (const auto& file : m_files) file->releaseResidentPages();
}

void WhisperModel::releaseResidentPages(const TensorView& view) const {
    for (const auto& file : m_files) file->releaseResidentPages(view.data, view.bytes);
}

Result<void> bindWeights(std::map<std::string, FoundTensor> tensors, bool ggmlNames, const LoadOptions& options,
                         WhisperModel::Parts& parts) {
    auto specs = whisperTensorSpecs(parts.config, &parts.weights);
    const std::string source = parts.path.string();
    size_t total = 0;
    for (const auto& spec : specs) {
        const std::string& key = ggmlNames ? spec.ggmlName : spec.hfName;
        auto it = tensors.find(key);
        if (it == tensors.end()) {
            TensorView expected;
            expected.shape = ggmlNames ? spec.ggmlShape : spec.shape;
            return makeError(source + ": tensor '" + key + "' is missing (expected " + expected.shapeString() + ", " +
                             allowedDtypes(spec) + ")");
        }
        TensorView view = it->second.view;
        const std::string what = it->second.file + ": tensor '" + key + "'";
        const auto& expectedShape = ggmlNames ? spec.ggmlShape : spec.shape;
        if (view.shape != expectedShape && view.shape != spec.shape) {
            TensorView expected;
            expected.shape = expectedShape;
            return makeError(what + " has shape " + view.shapeString() + ", expected " + expected.shapeString());
        }
        view.shape = spec.shape;
        if (!dtypeAllowed(spec, view.dtype)) {
            return makeError(what + " has dtype " + std::string(dtypeName(view.dtype)) + ", expected " + allowedDtypes(spec));
        }
        if (options.checkFinite) {
            if (auto bad = findNonFinite(view)) {
                return makeError(what + " holds a non-finite value (NaN or Inf) at element " + std::to_string(*bad) + " " +
                                 indexString(view.shape, *bad));
            }
        }
        total += view.bytes;
        *spec.target = view;
        tensors.erase(it);
    }
    if (!tensors.empty()) {
        const auto& [name, found] = *tensors.begin();
        return makeError(found.file + ": unexpected tensor '" + name + "' " + found.view.shapeString() +
                         ": not part of a Whisper model with these dimensions");
    }
    parts.weightBytes = total;
    return {};
}

GenerationSettings derivedGenerationSettings(const WhisperConfig& config) {
    const auto ids = SpecialTokens::forVocabularySize(config.nVocab);
    GenerationSettings g;
    g.beginSuppressTokens = {220, ids.eot};
    g.noTimestampsTokenId = ids.noTimestamps;
    g.maxInitialTimestampIndex = 50;
    // The reference's default: every head of the last half of the decoder layers.
    for (int layer = config.nTextLayer / 2; layer < config.nTextLayer; ++layer) {
        for (int head = 0; head < config.nTextHead; ++head) g.alignmentHeads.emplace_back(layer, head);
    }
    if (config.isMultilingual()) {
        for (int i = 0; i < ids.languageCount; ++i) {
            g.languageTokens["<|" + std::string(whisperLanguages()[size_t(i)].code) + "|>"] = ids.firstLanguage + i;
        }
    }
    return g;
}

} // namespace hearsay
