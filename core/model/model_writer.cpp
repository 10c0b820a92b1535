// Streaming writers for Hugging Face checkpoint directories and whisper.cpp ggml files.
#include "core/model/model_writer.h"

#include "core/frontend/log_mel.h"
#include "core/model/bpe_merges.h"
#include "core/model/ctranslate2_file.h"
#include "core/model/ctranslate2_whisper_spec.h"
#include "core/model/ggml_file.h"
#include "core/model/quantize.h"
#include "core/model/safetensors.h"
#include "core/text/tokenizer.h"
#include "core/text/byte_unicode.h"
#include "core/util/half.h"
#include "core/util/json_text.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace fs = std::filesystem;
using nlohmann::json;

namespace hearsay {
namespace {

constexpr int64_t kChunkElements = int64_t(1) << 20;  // a multiple of the 32-element blocks

// Generates one tensor chunk by chunk, converting each chunk to `dtype` and passing the bytes on.
template <class Sink>
Result<void> streamTensor(const TensorSpec& spec, DType dtype, const WeightGenerator& generator, Sink&& sink) {
    const int64_t n = spec.elements();
    std::vector<float> values(static_cast<size_t>(std::min(n, kChunkElements)));
    std::vector<std::byte> bytes;
    for (int64_t first = 0; first < n; first += kChunkElements) {
        const int64_t count = std::min(kChunkElements, n - first);
        generator(spec, first, count, values.data());
        const void* data = values.data();
        size_t size = size_t(count) * 4;
        if (dtype != DType::F32) {
            size = size_t(dtypeBytes(dtype, count));
            bytes.resize(size);
            if (dtype == DType::F16 || dtype == DType::BF16) {
                for (int64_t i = 0; i < count; ++i) {
                    const uint16_t h = dtype == DType::F16 ? floatToHalf(values[size_t(i)]) : floatToBf16(values[size_t(i)]);
                    std::memcpy(bytes.data() + 2 * i, &h, 2);
                }
            } else {
                quantizeRow(dtype, values.data(), count, bytes.data());
            }
            data = bytes.data();
        }
        if (auto ok = sink(first == 0, data, size); !ok) return ok;
    }
    return {};
}

Result<void> writeText(const fs::path& path, const std::string& text) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return makeError("cannot create " + path.string() + ": " + std::strerror(errno));
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) return makeError("cannot write " + path.string() + ": " + std::strerror(errno));
    return {};
}

// Names of the special tokens in id order, from <|endoftext|> to <|30.00|>.
std::vector<std::string> specialTokenNames(const WhisperConfig& config) {
    const auto ids = SpecialTokens::forVocabularySize(config.nVocab);
    std::vector<std::string> names = {"<|endoftext|>", "<|startoftranscript|>"};
    for (int i = 0; i < ids.languageCount; ++i) names.push_back("<|" + std::string(whisperLanguages()[size_t(i)].code) + "|>");
    for (const char* s : {"<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>"}) {
        names.emplace_back(s);
    }
    for (int i = 0; i <= 1500; ++i) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "<|%d.%02d|>", i / 50, (i % 50) * 2);
        names.emplace_back(buf);
    }
    return names;
}

const char* torchDtype(DType dtype) {
    switch (dtype) {
    case DType::F16: return "float16";
    case DType::BF16: return "bfloat16";
    default: return "float32";
    }
}

std::vector<std::pair<int, int>> lastHalfHeads(const WhisperConfig& c) {
    std::vector<std::pair<int, int>> heads;
    for (int layer = c.nTextLayer / 2; layer < c.nTextLayer; ++layer) {
        for (int head = 0; head < c.nTextHead; ++head) heads.emplace_back(layer, head);
    }
    return heads;
}

json configJson(const WhisperConfig& c, DType dtype) {
    const auto ids = SpecialTokens::forVocabularySize(c.nVocab);
    json j;
    j["activation_dropout"] = 0.0;
    j["activation_function"] = "gelu";
    j["apply_spec_augment"] = false;
    j["architectures"] = json::array({"WhisperForConditionalGeneration"});
    j["attention_dropout"] = 0.0;
    j["begin_suppress_tokens"] = json::array({220, ids.eot});
    j["bos_token_id"] = ids.eot;
    j["classifier_proj_size"] = 256;
    j["d_model"] = c.nAudioState;
    j["decoder_attention_heads"] = c.nTextHead;
    j["decoder_ffn_dim"] = 4 * c.nTextState;
    j["decoder_layerdrop"] = 0.0;
    j["decoder_layers"] = c.nTextLayer;
    j["decoder_start_token_id"] = ids.sot;
    j["dropout"] = 0.0;
    j["encoder_attention_heads"] = c.nAudioHead;
    j["encoder_ffn_dim"] = 4 * c.nAudioState;
    j["encoder_layerdrop"] = 0.0;
    j["encoder_layers"] = c.nAudioLayer;
    j["eos_token_id"] = ids.eot;
    j["init_std"] = 0.02;
    j["is_encoder_decoder"] = true;
    j["max_length"] = c.nTextCtx;
    j["max_source_positions"] = c.nAudioCtx;
    j["max_target_positions"] = c.nTextCtx;
    j["median_filter_width"] = 7;
    j["model_type"] = "whisper";
    j["num_hidden_layers"] = c.nAudioLayer;
    j["num_mel_bins"] = c.nMels;
    j["pad_token_id"] = ids.eot;
    j["scale_embedding"] = false;
    j["tie_word_embeddings"] = true;
    j["torch_dtype"] = torchDtype(dtype);
    j["use_cache"] = true;
    j["use_weighted_layer_sum"] = false;
    j["vocab_size"] = c.nVocab;
    return j;
}

json headsJson(const ModelWriteRequest& request) {
    json heads = json::array();
    for (auto [layer, head] : request.alignmentHeads.empty() ? lastHalfHeads(request.config) : request.alignmentHeads) {
        heads.push_back(json::array({layer, head}));
    }
    return heads;
}

json generationConfigJson(const ModelWriteRequest& request) {
    const WhisperConfig& c = request.config;
    const auto ids = SpecialTokens::forVocabularySize(c.nVocab);
    json j;
    const json heads = headsJson(request);
    j["alignment_heads"] = heads;
    j["begin_suppress_tokens"] = json::array({220, ids.eot});
    j["bos_token_id"] = ids.eot;
    j["decoder_start_token_id"] = ids.sot;
    j["eos_token_id"] = ids.eot;
    j["is_multilingual"] = c.isMultilingual();
    if (c.isMultilingual()) {
        json langs;
        for (int i = 0; i < ids.languageCount; ++i) {
            langs["<|" + std::string(whisperLanguages()[size_t(i)].code) + "|>"] = ids.firstLanguage + i;
        }
        j["lang_to_id"] = langs;
        json tasks;
        tasks["transcribe"] = ids.transcribe;
        tasks["translate"] = ids.translate;
        j["task_to_id"] = tasks;
    }
    j["max_initial_timestamp_index"] = 50;
    j["max_length"] = c.nTextCtx;
    j["no_timestamps_token_id"] = ids.noTimestamps;
    j["pad_token_id"] = ids.eot;
    j["prev_sot_token_id"] = ids.startOfPrev;
    j["return_timestamps"] = false;
    j["suppress_tokens"] = request.suppressTokens;
    return j;
}

Result<void> writeTokenizerFiles(const fs::path& dir, const ModelWriteRequest& request) {
    const auto& c = request.config;
    const auto ids = SpecialTokens::forVocabularySize(c.nVocab);
    std::vector<std::string> ordinary(request.vocabulary.begin(), request.vocabulary.begin() + ids.eot);
    const auto specials = specialTokenNames(c);

    json vocab = json::object();
    for (int id = 0; id < ids.eot; ++id) vocab[bytesToVocabText(ordinary[size_t(id)])] = id;
    vocab["<|endoftext|>"] = ids.eot;
    if (auto ok = writeText(dir / "vocab.json", dumpJson(vocab)); !ok) return ok;

    auto merges = deriveBpeMerges(ordinary);
    if (!merges) return makeError("cannot derive merges.txt from the vocabulary: " + merges.message());
    std::string mergesText = "#version: 0.2\n";
    for (const auto& m : merges.value()) mergesText += bytesToVocabText(m.left) + " " + bytesToVocabText(m.right) + "\n";
    if (auto ok = writeText(dir / "merges.txt", mergesText); !ok) return ok;

    json added = json::object();
    for (size_t i = 0; i < specials.size(); ++i) added[specials[i]] = ids.eot + int(i);
    if (auto ok = writeText(dir / "added_tokens.json", dumpJson(added, 2)); !ok) return ok;

    // Every special token except the timestamps is "special" (skipped when decoding).
    json extra = json::array();
    for (int id = ids.eot; id < ids.timestampBegin; ++id) extra.push_back(specials[size_t(id - ids.eot)]);
    json map;
    map["additional_special_tokens"] = extra;
    for (const char* key : {"bos_token", "eos_token", "pad_token", "unk_token"}) map[key] = "<|endoftext|>";
    if (auto ok = writeText(dir / "special_tokens_map.json", dumpJson(map, 2)); !ok) return ok;

    json tc = map;
    tc["add_prefix_space"] = false;
    tc["clean_up_tokenization_spaces"] = true;
    tc["errors"] = "replace";
    tc["model_max_length"] = 1024;
    tc["processor_class"] = "WhisperProcessor";
    tc["return_attention_mask"] = false;
    tc["tokenizer_class"] = "WhisperTokenizer";
    return writeText(dir / "tokenizer_config.json", dumpJson(tc, 2));
}

// tokenizer.json (the Hugging Face tokenizers library's file: byte-level BPE with the special
// tokens added), which faster-whisper reads beside a CTranslate2 model.
Result<void> writeTokenizerJson(const fs::path& path, const ModelWriteRequest& request) {
    const auto& c = request.config;
    const auto ids = SpecialTokens::forVocabularySize(c.nVocab);
    std::vector<std::string> ordinary(request.vocabulary.begin(), request.vocabulary.begin() + ids.eot);
    auto merges = deriveBpeMerges(ordinary);
    if (!merges) return makeError("cannot derive the BPE merges from the vocabulary: " + merges.message());
    const auto specials = specialTokenNames(c);
    json added = json::array();
    for (int id = ids.eot; id < ids.timestampBegin; ++id) {
        json t;
        t["id"] = id;
        t["content"] = specials[size_t(id - ids.eot)];
        t["single_word"] = false;
        t["lstrip"] = false;
        t["rstrip"] = false;
        t["normalized"] = false;
        t["special"] = true;
        added.push_back(t);
    }
    json byteLevel;
    byteLevel["type"] = "ByteLevel";
    byteLevel["add_prefix_space"] = false;
    byteLevel["trim_offsets"] = true;
    byteLevel["use_regex"] = true;
    json vocab = json::object();
    for (int id = 0; id < ids.eot; ++id) vocab[bytesToVocabText(ordinary[size_t(id)])] = id;
    vocab["<|endoftext|>"] = ids.eot;
    json mergeList = json::array();
    for (const auto& m : merges.value()) mergeList.push_back(bytesToVocabText(m.left) + " " + bytesToVocabText(m.right));
    json model;
    model["type"] = "BPE";
    model["dropout"] = nullptr;
    model["unk_token"] = nullptr;
    model["continuing_subword_prefix"] = "";
    model["end_of_word_suffix"] = "";
    model["fuse_unk"] = false;
    model["vocab"] = vocab;
    model["merges"] = mergeList;
    json j;
    j["version"] = "1.0";
    j["truncation"] = nullptr;
    j["padding"] = nullptr;
    j["added_tokens"] = added;
    j["normalizer"] = nullptr;
    j["pre_tokenizer"] = byteLevel;
    j["post_processor"] = nullptr;
    j["decoder"] = byteLevel;
    j["model"] = model;
    return writeText(path, dumpJson(j));
}

Result<void> checkRequest(const ModelWriteRequest& request) {
    if (auto ok = request.config.validate(); !ok) return ok;
    const int ordinary = SpecialTokens::forVocabularySize(request.config.nVocab).eot;
    if (int(request.vocabulary.size()) < ordinary) {
        return makeError("the vocabulary holds " + std::to_string(request.vocabulary.size()) + " tokens, the model needs " +
                         std::to_string(ordinary));
    }
    if (!request.weights) return makeError("no weight generator");
    return {};
}

} // namespace

// Block formats (q8_0, q5_*, q4_*) quantise every matrix, the token embedding included (it is also
// the tied output projection over the whole vocabulary), as whisper.cpp's quantiser does: whisper.cpp
// reads the token embedding as the file's type and refuses a file that stores it otherwise ("has
// wrong size"), and the bench's whisper.cpp-q8_0 reads the same file as hearsay-q8_0. Measured on
// 440 s of real speech (greedy, f16 tokens forced): keeping it f16 in q8_0 files halves the mean KL
// divergence of the logits from the f16 model's but not the steps whose token changes (tiny.en 6
// instead of 5 of 986, base 1 instead of 0 of 1091), and costs 30-43% more file (tiny.en +18.7 MB,
// base +24.9 MB); neither do the cross-attention K/V, the encoder or the decoder stand out.
DType ggmlTensorDtype(const TensorSpec& spec, DType fileDtype) {
    if (fileDtype == DType::F32) return DType::F32;
    switch (spec.kind) {
    case TensorKind::Vector:
    case TensorKind::Positional: return DType::F32;
    case TensorKind::Conv: return DType::F16;
    case TensorKind::Matrix: return dtypeAllowed(spec, fileDtype) ? fileDtype : DType::F16;
    }
    return DType::F32;
}

Result<void> writeHuggingFaceCheckpoint(const fs::path& dir, const ModelWriteRequest& request) {
    if (auto ok = checkRequest(request); !ok) return ok;
    if (request.dtype != DType::F32 && request.dtype != DType::F16 && request.dtype != DType::BF16) {
        return makeError("Hugging Face checkpoints hold f32, f16 or bf16 tensors, not " + std::string(dtypeName(request.dtype)));
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return makeError("cannot create directory " + dir.string() + ": " + ec.message());
    const auto& c = request.config;
    if (auto ok = writeText(dir / "config.json", dumpJson(configJson(c, request.dtype), 2)); !ok) return ok;
    if (auto ok = writeText(dir / "generation_config.json", dumpJson(generationConfigJson(request), 2)); !ok) return ok;
    if (auto ok = writeTokenizerFiles(dir, request); !ok) return ok;

    const auto specs = whisperTensorSpecs(c);
    std::vector<SafetensorsWriter::Entry> entries;
    for (const auto& s : specs) entries.push_back({s.hfName, request.dtype, s.shape});
    auto writer = SafetensorsWriter::create(dir / "model.safetensors", entries, {{"format", "pt"}});
    if (!writer) return writer.error();
    for (const auto& s : specs) {
        std::vector<std::byte> whole(static_cast<size_t>(dtypeBytes(request.dtype, s.elements())));
        // The safetensors writer takes a tensor at once; chunks are gathered per tensor here.
        size_t filled = 0;
        auto ok = streamTensor(s, request.dtype, request.weights, [&](bool, const void* data, size_t bytes) -> Result<void> {
            std::memcpy(whole.data() + filled, data, bytes);
            filled += bytes;
            return {};
        });
        if (!ok) return ok;
        if (auto w = writer.value()->write(s.hfName, whole.data(), whole.size()); !w) return w;
    }
    return writer.value()->finish();
}

Result<void> writeGgmlModel(const fs::path& file, const ModelWriteRequest& request) {
    if (auto ok = checkRequest(request); !ok) return ok;
    if (request.dtype == DType::BF16) return makeError("ggml files are written as f32, f16 or a block format, not bf16");
    const auto& c = request.config;
    int32_t ftype = 0;
    switch (request.dtype) {
    case DType::F32: ftype = 0; break;
    case DType::F16: ftype = 1; break;
    case DType::Q4_0: ftype = 2; break;
    case DType::Q4_1: ftype = 3; break;
    case DType::Q8_0: ftype = 7; break;
    case DType::Q5_0: ftype = 8; break;
    case DType::Q5_1: ftype = 9; break;
    case DType::BF16: break;
    }
    if (isQuantized(request.dtype)) ftype += 2 * 1000;  // GGML_QNT_VERSION 2, as whisper.cpp's quantize writes
    const auto mel = melFilterbank(c.nMels);
    const int ordinary = SpecialTokens::forVocabularySize(c.nVocab).eot;
    std::vector<std::string> vocabulary(request.vocabulary.begin(), request.vocabulary.begin() + ordinary);
    auto writer = GgmlWriter::create(file, c, ftype, mel, c.nMels, kFftSize / 2 + 1, vocabulary);
    if (!writer) return writer.error();
    for (const auto& s : whisperTensorSpecs(c)) {
        const DType dtype = ggmlTensorDtype(s, request.dtype);
        std::vector<std::byte> whole(static_cast<size_t>(dtypeBytes(dtype, s.elements())));
        size_t filled = 0;
        auto ok = streamTensor(s, dtype, request.weights, [&](bool, const void* data, size_t bytes) -> Result<void> {
            std::memcpy(whole.data() + filled, data, bytes);
            filled += bytes;
            return {};
        });
        if (!ok) return ok;
        if (auto w = writer.value()->writeTensor(s.ggmlName, dtype, s.ggmlShape, whole.data(), whole.size()); !w) return w;
    }
    return writer.value()->finish();
}

namespace {

// One tensor of the request as floats (whole).
std::vector<float> generateTensor(const TensorSpec& spec, const WeightGenerator& generator) {
    std::vector<float> values(size_t(spec.elements()));
    for (int64_t first = 0; first < spec.elements(); first += kChunkElements) {
        generator(spec, first, std::min(kChunkElements, spec.elements() - first), values.data() + first);
    }
    return values;
}

// Matrices ctranslate2 quantises: linear, conv and embedding weights (not positions or norms).
bool ct2Quantisable(const std::string& variable) {
    const std::string suffix = "/weight";
    return variable.size() > suffix.size() && variable.compare(variable.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Ct2Type ct2FloatType(DType dtype) { return dtype == DType::F16 ? Ct2Type::F16 : dtype == DType::BF16 ? Ct2Type::BF16 : Ct2Type::F32; }

std::vector<std::byte> ct2FloatBytes(const std::vector<float>& values, Ct2Type type) {
    std::vector<std::byte> bytes(values.size() * ct2TypeBytes(type));
    for (size_t i = 0; i < values.size(); ++i) {
        if (type == Ct2Type::F32) {
            std::memcpy(bytes.data() + 4 * i, &values[i], 4);
        } else {
            const uint16_t h = type == Ct2Type::F16 ? floatToHalf(values[i]) : floatToBf16(values[i]);
            std::memcpy(bytes.data() + 2 * i, &h, 2);
        }
    }
    return bytes;
}

} // namespace

Result<void> writeCTranslate2Checkpoint(const fs::path& dir, const ModelWriteRequest& request) {
    if (auto ok = checkRequest(request); !ok) return ok;
    if (request.dtype != DType::F32 && request.dtype != DType::F16 && request.dtype != DType::BF16) {
        return makeError("CTranslate2 models hold float32, float16 or bfloat16 tensors (or int8/int16 matrices), not " +
                         std::string(dtypeName(request.dtype)));
    }
    if (request.ct2IntegerBits != 0 && request.ct2IntegerBits != 8 && request.ct2IntegerBits != 16) {
        return makeError("CTranslate2 quantises to int8 or int16, not " + std::to_string(request.ct2IntegerBits) + " bits");
    }
    const WhisperConfig& c = request.config;
    const auto ids = SpecialTokens::forVocabularySize(c.nVocab);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return makeError("cannot create directory " + dir.string() + ": " + ec.message());

    json config;
    config["alignment_heads"] = headsJson(request);
    if (c.isMultilingual()) {
        std::vector<int> languages;
        for (int i = 0; i < ids.languageCount; ++i) languages.push_back(ids.firstLanguage + i);
        config["lang_ids"] = languages;
    }
    config["suppress_ids"] = request.suppressTokens;
    config["suppress_ids_begin"] = json::array({220, ids.eot});
    if (auto ok = writeText(dir / "config.json", dumpJson(config, 2)); !ok) return ok;

    std::string vocabulary;
    for (int id = 0; id < ids.eot; ++id) vocabulary += bytesToVocabText(request.vocabulary[size_t(id)]) + "\n";
    for (const std::string& special : specialTokenNames(c)) vocabulary += special + "\n";
    if (auto ok = writeText(dir / "vocabulary.txt", vocabulary); !ok) return ok;
    if (auto ok = writeTokenizerJson(dir / "tokenizer.json", request); !ok) return ok;

    // Each variable and the Hugging Face tensors it is made of, in row-block order.
    std::map<std::string, const TensorSpec*> specOf;
    const auto specs = whisperTensorSpecs(c);
    for (const auto& spec : specs) specOf[spec.hfName] = &spec;
    std::map<std::string, std::vector<std::pair<int, const TensorSpec*>>> parts;  // variable -> (part, spec)
    std::map<std::string, int> partCount;
    for (const auto& [hfName, source] : whisperCt2Sources(c.nAudioLayer, c.nTextLayer)) {
        parts[source.variable].emplace_back(source.part, specOf.at(hfName));
        partCount[source.variable] = source.parts;
    }
    size_t quantised = 0;
    if (request.ct2IntegerBits != 0) {
        for (const auto& [variable, pieces] : parts) quantised += ct2Quantisable(variable) ? 1 : 0;
    }
    std::vector<const Ct2Scalar*> scalars;
    for (const Ct2Scalar& s : whisperCt2Scalars())
        if (s.written) scalars.push_back(&s);
    auto writer = Ct2Writer::create(dir / "model.bin", kWhisperSpecName, kWhisperSpecRevision,
                                    uint32_t(parts.size() + quantised + scalars.size()));
    if (!writer) return writer.error();

    for (const Ct2Scalar* s : scalars) {
        const int64_t value = std::string(s->name) == "encoder/num_heads"   ? c.nAudioHead
                              : std::string(s->name) == "decoder/num_heads" ? c.nTextHead
                                                                            : *s->written;
        const int16_t v16 = int16_t(value);
        const int8_t v8 = int8_t(value);
        auto ok = s->int16 ? writer.value()->write(s->name, Ct2Type::I16, {}, &v16, 2) : writer.value()->write(s->name, Ct2Type::I8, {}, &v8, 1);
        if (!ok) return ok;
    }
    for (auto& [variable, pieces] : parts) {
        std::sort(pieces.begin(), pieces.end(), [](auto& a, auto& b) { return a.first < b.first; });
        const int count = partCount[variable];
        const TensorSpec& first = *pieces.front().second;
        std::vector<int64_t> shape = first.shape;
        shape[0] *= count;
        const size_t blockElements = size_t(first.elements());
        std::vector<float> values(blockElements * size_t(count), 0.0f);  // a block with no tensor: a key bias, zero
        for (const auto& [part, spec] : pieces) {
            const std::vector<float> block = generateTensor(*spec, request.weights);
            std::copy(block.begin(), block.end(), values.begin() + std::ptrdiff_t(blockElements * size_t(part)));
        }
        if (request.ct2IntegerBits != 0 && ct2Quantisable(variable)) {
            // ctranslate2's converter: q = round(w · scale); int8: scale = 127 / max|w| per row (127
            // for an all-zero row), int16: one scale 2^10 / max|w|.
            const size_t rows = size_t(shape[0]), rowElements = values.size() / rows;
            const bool int8 = request.ct2IntegerBits == 8;
            std::vector<float> scale(int8 ? rows : 1);
            if (int8) {
                for (size_t r = 0; r < rows; ++r) {
                    float amax = 0.0f;
                    for (size_t i = 0; i < rowElements; ++i) amax = std::max(amax, std::abs(values[r * rowElements + i]));
                    scale[r] = 127.0f / (amax == 0.0f ? 127.0f : amax);
                }
            } else {
                float amax = 0.0f;
                for (float v : values) amax = std::max(amax, std::abs(v));
                scale[0] = 1024.0f / (amax == 0.0f ? 1.0f : amax);
            }
            std::vector<std::byte> q(values.size() * (int8 ? 1 : 2));
            for (size_t i = 0; i < values.size(); ++i) {
                const float x = std::nearbyint(values[i] * scale[int8 ? i / rowElements : 0]);
                if (int8) {
                    const int8_t v = int8_t(std::clamp(x, -128.0f, 127.0f));
                    std::memcpy(q.data() + i, &v, 1);
                } else {
                    const int16_t v = int16_t(std::clamp(x, -32768.0f, 32767.0f));
                    std::memcpy(q.data() + 2 * i, &v, 2);
                }
            }
            if (auto ok = writer.value()->write(variable, int8 ? Ct2Type::I8 : Ct2Type::I16, shape, q.data(), q.size()); !ok) return ok;
            const std::vector<int64_t> scaleShape = int8 ? std::vector<int64_t>{int64_t(rows)} : std::vector<int64_t>{};
            if (auto ok = writer.value()->write(variable + "_scale", Ct2Type::F32, scaleShape, scale.data(), scale.size() * 4); !ok) return ok;
            continue;
        }
        const Ct2Type type = request.ct2IntegerBits != 0 ? Ct2Type::F32 : ct2FloatType(request.dtype);
        const auto bytes = ct2FloatBytes(values, type);
        if (auto ok = writer.value()->write(variable, type, shape, bytes.data(), bytes.size()); !ok) return ok;
    }
    return writer.value()->finish({{kCt2ProjectionAlias, kCt2Embeddings}});
}

} // namespace hearsay
