// Model files: make-test-model writes both formats, both load to the same weights, and every kind
// of corrupt file (each row damages a freshly written file in one way) gives a clear error.
#include "core/model/ggml_file.h"
#include "core/model/model_tokenizer.h"
#include "core/model/random_init.h"
#include "core/model/safetensors.h"
#include "core/model/test_model.h"
#include "core/text/tokenizer.h"
#include "core/model/whisper_model.h"
#include "core/model/whisper_tensors.h"
#include "core/util/half.h"
#include "core/util/json_text.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

using nlohmann::json;

using namespace hearsay;
namespace fs = std::filesystem;

namespace {

const fs::path kSharedData = HEARSAY_SHARED_DATA_DIR;

// The random-weight specification's reference implementation of one element, kept verbatim as
// an independent check.
uint64_t referenceFnv1a(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}
float referenceInitValue(uint64_t seed, std::string_view name, uint64_t i, double mean, double stddev) {
    uint64_t z = ((seed * 0x9E3779B97F4A7C15ull) ^ referenceFnv1a(name)) + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    double u = double(z >> 40) / 16777216.0;
    return float(mean + stddev * 1.7320508075688772 * (2.0 * u - 1.0));
}

std::string readBytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}
void writeBytes(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

Result<void> makeModel(const fs::path& out, ModelFormat format, DType dtype, const std::string& dims = "64x2x2",
                       uint64_t seed = 7) {
    TestModelOptions o;
    o.dims = dims;
    o.seed = seed;
    o.format = format;
    o.dtype = dtype;
    const bool english = dims.size() > 3 && dims.substr(dims.size() - 3) == ".en";
    o.vocabularyFile = kSharedData / (english ? "ggml-vocab-tiny.en.bin" : "ggml-vocab-tiny.bin");
    return makeTestModel(o, out);
}

std::vector<float> toFloat(const TensorView& v) {
    std::vector<float> out(static_cast<size_t>(v.elements()));
    convertToFloat(v, out.data());
    return out;
}

// Every tensor of a loaded model, by HF name (views copied from the model: same data).
std::vector<std::pair<std::string, TensorView>> allTensors(const WhisperModel& m) {
    WhisperWeights copy = m.weights();
    std::vector<std::pair<std::string, TensorView>> out;
    for (const auto& spec : whisperTensorSpecs(m.config(), &copy)) out.emplace_back(spec.hfName, *spec.target);
    return out;
}

// Rewrites a safetensors file's JSON header (the data section is kept byte for byte).
void editSafetensorsHeader(const fs::path& file, const std::function<void(json&)>& edit) {
    std::string bytes = readBytes(file);
    uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    json header = parseJson(std::string_view(bytes).substr(8, size_t(n))).value();
    edit(header);
    std::string text = header.dump();
    while (text.size() % 8) text += ' ';
    uint64_t m = text.size();
    std::string out(reinterpret_cast<const char*>(&m), 8);
    writeBytes(file, out + text + bytes.substr(8 + size_t(n)));
}

json without(const json& object, const std::string& key) {
    json copy = object;
    copy.erase(key);
    return copy;
}

// Byte offset of the data of tensor `name` in a safetensors file.
size_t safetensorsDataOffset(const fs::path& file, const std::string& name) {
    std::string bytes = readBytes(file);
    uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    json header = parseJson(std::string_view(bytes).substr(8, size_t(n))).value();
    return 8 + size_t(n) + size_t(header[name]["data_offsets"][0].get<int64_t>());
}

struct GgmlTensorLocation {
    size_t header = 0;  // offset of n_dims
    size_t data = 0;    // offset of the data
    int nDims = 0;
};
// Walks a ggml file written by make-test-model and returns where tensor `name` sits.
GgmlTensorLocation locateGgmlTensor(const std::string& bytes, const std::string& name) {
    auto i32 = [&](size_t off) {
        int32_t v;
        std::memcpy(&v, bytes.data() + off, 4);
        return v;
    };
    size_t off = 4 + 44;
    off += 8 + size_t(i32(off)) * size_t(i32(off + 4)) * 4;
    const int32_t nTokens = i32(off);
    off += 4;
    for (int32_t t = 0; t < nTokens; ++t) off += 4 + size_t(i32(off));
    while (off < bytes.size()) {
        GgmlTensorLocation loc;
        loc.header = off;
        loc.nDims = i32(off);
        const int32_t nameLen = i32(off + 4);
        const int32_t type = i32(off + 8);
        int64_t elements = 1;
        for (int d = 0; d < loc.nDims; ++d) elements *= i32(off + 12 + size_t(d) * 4);
        const size_t nameOff = off + 12 + size_t(loc.nDims) * 4;
        loc.data = nameOff + size_t(nameLen);
        const int64_t size = dtypeBytes(*dtypeFromGgmlType(type), elements);
        if (bytes.compare(nameOff, size_t(nameLen), name) == 0 && size_t(nameLen) == name.size()) return loc;
        off = loc.data + size_t(size);
    }
    return {};
}

void putI32(std::string& bytes, size_t off, int32_t v) { std::memcpy(bytes.data() + off, &v, 4); }

} // namespace

class TestModelFiles : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    fs::path m_hf, m_ggml, m_ggmlF16;

    fs::path tmp(const std::string& name) const { return fs::path(m_dir.path().toStdString()) / name; }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_hf = tmp("hf-f32");
        m_ggml = tmp("ggml-f32.bin");
        m_ggmlF16 = tmp("ggml-f16.bin");
        for (auto [path, format, dtype] : {std::tuple{m_hf, ModelFormat::HuggingFace, DType::F32},
                                           std::tuple{m_ggml, ModelFormat::Ggml, DType::F32},
                                           std::tuple{m_ggmlF16, ModelFormat::Ggml, DType::F16}}) {
            auto ok = makeModel(path, format, dtype);
            QVERIFY2(ok.ok(), ok.ok() ? "" : ok.message().c_str());
        }
    }

    // The written weights follow the shared deterministic scheme exactly.
    void weightsFollowTheScheme() {
        auto model = WhisperModel::load(m_hf);
        QVERIFY2(model.ok(), model.ok() ? "" : model.message().c_str());
        const auto& m = *model.value();
        auto specs = whisperTensorSpecs(m.config());
        auto tensors = allTensors(m);
        QCOMPARE(tensors.size(), specs.size());
        for (size_t t = 0; t < specs.size(); ++t) {
            QVERIFY2(!tensors[t].second.empty(), specs[t].hfName.c_str());
            auto values = toFloat(tensors[t].second);
            for (size_t i : {size_t(0), size_t(1), values.size() / 2, values.size() - 1}) {
                const float expected = referenceInitValue(7, specs[t].hfName, i, specs[t].initMean, specs[t].initStd);
                QVERIFY2(values[i] == expected, (specs[t].hfName + " element " + std::to_string(i)).c_str());
            }
        }
        // Distribution sanity: fc1 weight of width 64 has std 1/8, uniform in +-sqrt(3)/8.
        auto fc1 = toFloat(m.weights().encoderLayers[0].fc1.weight);
        double sum = 0, sq = 0, maxAbs = 0;
        for (float v : fc1) {
            sum += v;
            sq += double(v) * v;
            maxAbs = std::max(maxAbs, double(std::fabs(v)));
        }
        const double n = double(fc1.size());
        QVERIFY(std::fabs(sum / n) < 0.01);
        QVERIFY(std::fabs(std::sqrt(sq / n) - 0.125) < 0.005);
        QVERIFY(maxAbs <= std::sqrt(3.0) / 8 + 1e-6);
        // LayerNorm gamma has mean 1.
        auto gamma = toFloat(m.weights().decoderLn.gamma);
        double g = 0;
        for (float v : gamma) g += v;
        QVERIFY(std::fabs(g / double(gamma.size()) - 1.0) < 0.05);
    }

    // hf f32 and ggml f32 of the same seed give identical float weights; ggml f16 within fp16 rounding.
    void formatsAgree() {
        auto hf = WhisperModel::load(m_hf);
        auto gg = WhisperModel::load(m_ggml);
        auto g16 = WhisperModel::load(m_ggmlF16);
        QVERIFY2(hf.ok(), hf.ok() ? "" : hf.message().c_str());
        QVERIFY2(gg.ok(), gg.ok() ? "" : gg.message().c_str());
        QVERIFY2(g16.ok(), g16.ok() ? "" : g16.message().c_str());
        QCOMPARE(hf.value()->format(), ModelFormat::HuggingFace);
        QCOMPARE(gg.value()->format(), ModelFormat::Ggml);
        const auto& c = gg.value()->config();
        QCOMPARE(c.nAudioState, 64);
        QCOMPARE(c.nTextLayer, 2);
        QCOMPARE(c.nVocab, 51865);
        QCOMPARE(hf.value()->config().nAudioHead, 2);
        auto a = allTensors(*hf.value());
        auto b = allTensors(*gg.value());
        auto h = allTensors(*g16.value());
        QCOMPARE(a.size(), b.size());
        size_t f16Tensors = 0;
        for (size_t t = 0; t < a.size(); ++t) {
            QCOMPARE(a[t].second.shape, b[t].second.shape);
            auto x = toFloat(a[t].second);
            auto y = toFloat(b[t].second);
            QVERIFY2(x == y, a[t].first.c_str());
            auto z = toFloat(h[t].second);
            if (h[t].second.dtype == DType::F16) ++f16Tensors;
            for (size_t i = 0; i < x.size(); ++i) {
                const float expected = h[t].second.dtype == DType::F16 ? halfToFloat(floatToHalf(x[i])) : x[i];
                QVERIFY2(z[i] == expected, a[t].first.c_str());
            }
        }
        QVERIFY(f16Tensors > 0);
        // whisper.cpp's layout: 1-D tensors and positional embeddings stay f32 in an f16 file.
        QCOMPARE(g16.value()->weights().conv1.bias.dtype, DType::F32);
        QCOMPARE(g16.value()->weights().decoderPositional.dtype, DType::F32);
        QCOMPARE(g16.value()->weights().conv1.weight.dtype, DType::F16);
        QCOMPARE(g16.value()->weights().tokenEmbedding.dtype, DType::F16);
        QCOMPARE(g16.value()->weights().conv1.bias.shape, (std::vector<int64_t>{64}));
        // Memory-mapped in place: views point into the model file, not copies.
        QVERIFY(hf.value()->weightBytes() > size_t(51865) * 64 * 4);
    }

    void vocabularyAndSettings() {
        auto hf = WhisperModel::load(m_hf);
        auto gg = WhisperModel::load(m_ggml);
        QVERIFY(hf.ok() && gg.ok());
        const std::vector<std::string> v = hf.value()->vocabulary().strings();
        QCOMPARE(v.size(), size_t(50257));
        QVERIFY(gg.value()->vocabulary() == hf.value()->vocabulary());
        QCOMPARE(gg.value()->vocabulary().strings(), v);
        QCOMPARE(v[0], std::string("!"));
        QCOMPARE(v[94], std::string("\xA1"));     // restored: whisper.cpp's file says U+FFFD
        QCOMPARE(v[188], std::string("\x00", 1));
        QCOMPARE(v[264], std::string(" the"));
        std::set<std::string> unique(v.begin(), v.end());
        QCOMPARE(unique.size(), v.size());
        QCOMPARE(gg.value()->melFilters().size(), size_t(80 * 201));
        QVERIFY(hf.value()->melFilters().empty());

        for (const auto* m : {hf.value().get(), gg.value().get()}) {
            const auto& g = m->generation();
            QCOMPARE(g.beginSuppressTokens, (std::vector<int>{220, 50257}));
            QCOMPARE(g.noTimestampsTokenId.value_or(-1), 50363);
            QCOMPARE(g.languageTokens.size(), size_t(99));
            QCOMPARE(g.languageTokens.at("<|en|>"), 50259);
            QCOMPARE(g.languageTokens.at("<|af|>"), 50327);
            QCOMPARE(g.maxInitialTimestampIndex, 50);
            // A random model aligns on every head of the last half of the decoder layers.
            QCOMPARE(g.alignmentHeads, (std::vector<std::pair<int, int>>{{1, 0}, {1, 1}}));
        }
        QVERIFY(hf.value()->generation().fromGenerationConfig);
        QVERIFY(!gg.value()->generation().fromGenerationConfig);
        // make-test-model writes the reference's suppress_tokens: the vocabulary's non-speech symbols.
        auto tokenizer = Tokenizer::fromVocabulary(v, 51865);
        QVERIFY(tokenizer.ok());
        // A model's tokenizer keeps the model's table rather than a copy of it, and encodes as one
        // built from the strings.
        for (const auto* m : {hf.value().get(), gg.value().get()}) {
            const long owners = m->sharedVocabulary().use_count();
            std::optional<Tokenizer> own;
            {
                auto made = tokenizerForModel(*m);
                QVERIFY2(made.ok(), made.ok() ? "" : made.message().c_str());
                own.emplace(std::move(made).value());
            }
            QCOMPARE(m->sharedVocabulary().use_count(), owners + 1);
            const std::string text = "The quick brown fox, 1984: caf\xC3\xA9!";
            QCOMPARE(own->encode(text), tokenizer->encode(text));
            QCOMPARE(own->nonSpeechTokens(), tokenizer->nonSpeechTokens());
        }
        QCOMPARE(hf.value()->generation().suppressTokens, tokenizer->nonSpeechTokens());
        QCOMPARE(hf.value()->generation().suppressTokens.size(), size_t(82));

        auto config = parseJson(readTextFile(m_hf / "config.json").value()).value();
        QCOMPARE(config["model_type"].get<std::string>(), std::string("whisper"));
        QCOMPARE(config["architectures"][0].get<std::string>(), std::string("WhisperForConditionalGeneration"));
        QCOMPARE(config["decoder_start_token_id"].get<int64_t>(), int64_t(50258));
        QCOMPARE(config["eos_token_id"].get<int64_t>(), int64_t(50257));
        QCOMPARE(config["encoder_ffn_dim"].get<int64_t>(), int64_t(256));
        auto added = parseJson(readTextFile(m_hf / "added_tokens.json").value()).value();
        QCOMPARE(added["<|startoftranscript|>"].get<int64_t>(), int64_t(50258));
        QCOMPARE(added["<|notimestamps|>"].get<int64_t>(), int64_t(50363));
        QCOMPARE(added["<|30.00|>"].get<int64_t>(), int64_t(51864));
        auto merges = readTextFile(m_hf / "merges.txt").value();
        QVERIFY(merges.rfind("#version: 0.2\n\xC4\xA0 t\n\xC4\xA0 a\n\xC4\xA0t h\n", 0) == 0);
    }

    // Without vocab.json the vocabulary comes from tokenizer.json's model.vocab.
    void vocabularyFromTokenizerJson() {
        const fs::path dir = tmp("tokenizer-json");
        fs::copy(m_hf, dir);
        json tokenizer;
        tokenizer["model"]["type"] = "BPE";
        tokenizer["model"]["vocab"] = parseJson(readBytes(dir / "vocab.json")).value();
        writeBytes(dir / "tokenizer.json", tokenizer.dump());
        fs::remove(dir / "vocab.json");
        auto a = WhisperModel::load(dir);
        auto b = WhisperModel::load(m_hf);
        QVERIFY2(a.ok(), a.ok() ? "" : a.message().c_str());
        QCOMPARE(a.value()->vocabulary().strings(), b.value()->vocabulary().strings());
        // A weights-only checkpoint (no tokenizer files) loads with an empty vocabulary.
        fs::remove(dir / "tokenizer.json");
        auto none = WhisperModel::load(dir);
        QVERIFY2(none.ok(), none.ok() ? "" : none.message().c_str());
        QVERIFY(none.value()->vocabulary().empty());
        fs::remove_all(dir);
    }

    void englishAndLargeVocabularies() {
        const fs::path en = tmp("tiny-en-hf");
        auto ok = makeModel(en, ModelFormat::HuggingFace, DType::F16, "tiny.en", 3);
        QVERIFY2(ok.ok(), ok.ok() ? "" : ok.message().c_str());
        auto m = WhisperModel::load(en);
        QVERIFY2(m.ok(), m.ok() ? "" : m.message().c_str());
        QCOMPARE(m.value()->config().nVocab, 51864);
        QCOMPARE(m.value()->vocabulary().size(), size_t(50256));
        QCOMPARE(m.value()->weights().tokenEmbedding.dtype, DType::F16);
        QCOMPARE(m.value()->generation().beginSuppressTokens, (std::vector<int>{220, 50256}));
        QCOMPARE(m.value()->generation().noTimestampsTokenId.value_or(-1), 50362);
        QVERIFY(m.value()->generation().languageTokens.empty());
        fs::remove_all(en);

        // A multilingual vocabulary for an English-only size is refused.
        TestModelOptions o;
        o.dims = "tiny.en";
        o.vocabularyFile = kSharedData / "ggml-vocab-tiny.bin";
        auto wrong = makeTestModel(o, tmp("never"));
        QVERIFY(!wrong.ok());
        QVERIFY2(wrong.message().find("English-only") != std::string::npos, wrong.message().c_str());
    }

    void quantisedGgmlModelsLoad_data() {
        QTest::addColumn<QString>("dtype");
        for (const char* t : {"q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "bf16"}) QTest::newRow(t) << QString(t);
    }
    void quantisedGgmlModelsLoad() {
        QFETCH(QString, dtype);
        const DType type = parseDtype(dtype.toStdString()).value();
        const bool hf = type == DType::BF16;
        const fs::path path = tmp("quant-" + dtype.toStdString() + (hf ? "" : ".bin"));
        auto ok = makeModel(path, hf ? ModelFormat::HuggingFace : ModelFormat::Ggml, type);
        QVERIFY2(ok.ok(), ok.ok() ? "" : ok.message().c_str());
        auto q = WhisperModel::load(path);
        auto ref = WhisperModel::load(m_ggml);
        QVERIFY2(q.ok(), q.ok() ? "" : q.message().c_str());
        QCOMPARE(q.value()->weights().encoderLayers[0].fc1.weight.dtype, type);
        QCOMPARE(q.value()->weights().tokenEmbedding.dtype, type);
        auto a = toFloat(q.value()->weights().encoderLayers[1].fc2.weight);
        auto b = toFloat(ref.value()->weights().encoderLayers[1].fc2.weight);
        double maxErr = 0, maxAbs = 0;
        for (size_t i = 0; i < a.size(); ++i) {
            maxErr = std::max(maxErr, double(std::fabs(a[i] - b[i])));
            maxAbs = std::max(maxAbs, double(std::fabs(b[i])));
        }
        const double bits = type == DType::Q8_0 ? 8 : type == DType::BF16 ? 9 : (type == DType::Q5_0 || type == DType::Q5_1) ? 5 : 4;
        QVERIFY2(maxErr <= maxAbs * std::ldexp(2.0, -int(bits)), (std::to_string(maxErr) + " vs max " + std::to_string(maxAbs)).c_str());
        QVERIFY(maxErr > 0);
        if (hf) fs::remove_all(path);
        else fs::remove(path);
    }

    // Sharded checkpoints (model.safetensors.index.json) load to the same tensors.
    void shardedCheckpoint() {
        const fs::path dir = tmp("sharded");
        fs::create_directories(dir);
        for (const char* f : {"config.json", "generation_config.json", "vocab.json"}) fs::copy_file(m_hf / f, dir / f);
        auto single = openSafetensors(m_hf / "model.safetensors");
        QVERIFY(single.ok());
        std::vector<SafetensorsWriter::Entry> first, second;
        json weightMap;
        size_t i = 0;
        for (const auto& [name, view] : single->tensors) {
            // Half the tensors without the "model." prefix, as a bare WhisperModel saves them.
            const std::string stored = (i % 3 == 0) ? name.substr(6) : name;
            auto& part = (i++ % 2) ? second : first;
            part.push_back({stored, view.dtype, view.shape});
            weightMap[stored] = (&part == &first) ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
        }
        for (auto [entries, file] : {std::pair{&first, "model-00001-of-00002.safetensors"}, std::pair{&second, "model-00002-of-00002.safetensors"}}) {
            auto w = SafetensorsWriter::create(dir / file, *entries, {});
            QVERIFY(w.ok());
            for (const auto& e : *entries) {
                const std::string full = e.name.rfind("model.", 0) == 0 ? e.name : "model." + e.name;
                const auto& v = single->tensors.at(full);
                QVERIFY(w.value()->write(e.name, v.data, v.bytes).ok());
            }
            QVERIFY(w.value()->finish().ok());
        }
        json index;
        index["weight_map"] = weightMap;
        writeBytes(dir / "model.safetensors.index.json", index.dump());
        auto sharded = WhisperModel::load(dir);
        auto plain = WhisperModel::load(m_hf);
        QVERIFY2(sharded.ok(), sharded.ok() ? "" : sharded.message().c_str());
        auto a = allTensors(*sharded.value());
        auto b = allTensors(*plain.value());
        for (size_t t = 0; t < a.size(); ++t) QVERIFY2(toFloat(a[t].second) == toFloat(b[t].second), a[t].first.c_str());

        // An index naming a shard that is not there.
        weightMap["model.decoder.layer_norm.weight"] = "model-00003-of-00002.safetensors";
        index["weight_map"] = weightMap;
        writeBytes(dir / "model.safetensors.index.json", index.dump());
        auto missing = WhisperModel::load(dir);
        QVERIFY(!missing.ok());
        QVERIFY2(missing.message().find("model-00003-of-00002.safetensors") != std::string::npos, missing.message().c_str());
        fs::remove_all(dir);
    }

    // A tied proj_out.weight is accepted; one that differs is refused.
    void projOutMustBeTied() {
        const fs::path dir = tmp("projout");
        fs::copy(m_hf, dir);
        auto single = openSafetensors(m_hf / "model.safetensors");
        std::vector<SafetensorsWriter::Entry> entries;
        for (const auto& [name, view] : single->tensors) entries.push_back({name, view.dtype, view.shape});
        const auto& emb = single->tensors.at("model.decoder.embed_tokens.weight");
        entries.push_back({"proj_out.weight", emb.dtype, emb.shape});
        for (bool tied : {true, false}) {
            auto w = SafetensorsWriter::create(dir / "model.safetensors", entries, {});
            QVERIFY(w.ok());
            for (const auto& e : entries) {
                if (e.name == "proj_out.weight") {
                    std::string copy(reinterpret_cast<const char*>(emb.data), emb.bytes);
                    if (!tied) copy[100] = char(copy[100] ^ 1);
                    QVERIFY(w.value()->write(e.name, copy.data(), copy.size()).ok());
                } else {
                    const auto& v = single->tensors.at(e.name);
                    QVERIFY(w.value()->write(e.name, v.data, v.bytes).ok());
                }
            }
            QVERIFY(w.value()->finish().ok());
            auto m = WhisperModel::load(dir);
            QCOMPARE(m.ok(), tied);
            if (!tied) QVERIFY2(m.message().find("proj_out.weight") != std::string::npos, m.message().c_str());
        }
        fs::remove_all(dir);
    }

    void corruptHuggingFace_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("expected");
        const char* rows[][2] = {
            {"truncated safetensors", "beyond the end of the file"},
            {"header length beyond file", "exceeds the"},
            {"tiny file", "too short"},
            {"malformed header JSON", "malformed safetensors header"},
            {"data offsets beyond file", "beyond the end of the file"},
            {"overlapping tensors", "overlap"},
            {"offsets out of order", "out of order"},
            {"offsets size mismatch", "needs"},
            {"unknown dtype", "unsupported dtype 'I64'"},
            {"absurd shape", "absurdly large"},
            {"wrong shape", "has shape [64, 256], expected [256, 64]"},
            {"missing tensor", "tensor 'model.decoder.layers.1.fc2.bias' is missing"},
            {"unexpected tensor", "unexpected tensor 'model.decoder.extra'"},
            {"NaN weight", "'model.encoder.layers.0.fc1.weight' holds a non-finite value (NaN or Inf) at element 70 [1, 6]"},
            {"Inf weight", "'model.encoder.conv1.bias' holds a non-finite value (NaN or Inf) at element 3 [3]"},
            {"malformed config.json", "config.json: malformed JSON"},
            {"missing config key", "missing key \"d_model\""},
            {"absurd config dims", "invalid model dimensions: n_audio_state is 1000000"},
            {"non-integer config value", "\"encoder_layers\" must be an integer"},
            {"wrong ffn dim", "encoder_ffn_dim is 100"},
            {"no weights", "no model.safetensors"},
            {"vocab id missing", "ordinary token id"},
            {"malformed generation_config", "generation_config.json: malformed JSON"},
            {"bad alignment head", "alignment head [7,0]"},
            {"no config", "no config.json"},
            {"huge config number", "\"decoder_layers\" must be an integer in 1..1048576, found 1e+300"},
        };
        int kind = 0;
        for (auto& r : rows) QTest::newRow(r[0]) << kind++ << QString(r[1]);
    }
    void corruptHuggingFace() {
        QFETCH(int, kind);
        QFETCH(QString, expected);
        const fs::path dir = tmp("corrupt-hf");
        fs::remove_all(dir);
        fs::copy(m_hf, dir);
        const fs::path st = dir / "model.safetensors";
        const std::string fc1 = "model.encoder.layers.0.fc1.weight";
        switch (kind) {
        case 0: fs::resize_file(st, fs::file_size(st) / 2); break;
        case 1: {
            std::string b = readBytes(st);
            uint64_t n = fs::file_size(st);
            std::memcpy(b.data(), &n, 8);
            writeBytes(st, b);
            break;
        }
        case 2: writeBytes(st, "abc"); break;
        case 3: {
            std::string b = readBytes(st);
            b[8] = '#';
            writeBytes(st, b);
            break;
        }
        case 4:
            editSafetensorsHeader(st, [](json& h) {
                json off = json::array();
                off.push_back(int64_t(1) << 40);
                off.push_back((int64_t(1) << 40) + 256);
                h["model.decoder.layer_norm.bias"]["data_offsets"] = off;
            });
            break;
        case 5:
            editSafetensorsHeader(st, [](json& h) {
                // Make one bias (256 bytes) alias the middle of another tensor's data.
                int64_t begin = h["model.encoder.layers.0.fc2.bias"]["data_offsets"][0].get<int64_t>();
                json off = json::array();
                off.push_back(begin + 4);
                off.push_back(begin + 4 + 256);
                h["model.decoder.layer_norm.bias"]["data_offsets"] = off;
            });
            break;
        case 6:
            editSafetensorsHeader(st, [](json& h) {
                const auto& o = h["model.decoder.layer_norm.bias"]["data_offsets"];
                json off = json::array();
                off.push_back(o[1]);
                off.push_back(o[0]);
                h["model.decoder.layer_norm.bias"]["data_offsets"] = off;
            });
            break;
        case 7:
            editSafetensorsHeader(st, [](json& h) {
                json shape = json::array();
                shape.push_back(65);
                h["model.decoder.layer_norm.bias"]["shape"] = shape;
            });
            break;
        case 8: editSafetensorsHeader(st, [](json& h) { h["model.decoder.layer_norm.bias"]["dtype"] = "I64"; }); break;
        case 9:
            editSafetensorsHeader(st, [](json& h) {
                json shape = json::array();
                for (int i = 0; i < 4; ++i) shape.push_back(int64_t(1) << 31);
                h["model.decoder.layer_norm.bias"]["shape"] = shape;
            });
            break;
        case 10:
            editSafetensorsHeader(st, [&](json& h) {
                json shape = json::array();
                shape.push_back(64);
                shape.push_back(256);
                h[fc1]["shape"] = shape;
            });
            break;
        case 11: editSafetensorsHeader(st, [](json& h) { h = without(h, "model.decoder.layers.1.fc2.bias"); }); break;
        case 12:
            editSafetensorsHeader(st, [](json& h) {
                json e;
                e["dtype"] = "F32";
                e["shape"] = json::array({0});
                json off = json::array();
                off.push_back(0);
                off.push_back(0);
                e["data_offsets"] = off;
                h["model.decoder.extra"] = e;
            });
            break;
        case 13:
        case 14: {
            std::string b = readBytes(st);
            const size_t off = kind == 13 ? safetensorsDataOffset(st, fc1) + 70 * 4 : safetensorsDataOffset(st, "model.encoder.conv1.bias") + 3 * 4;
            const float bad = kind == 13 ? std::nanf("") : INFINITY;
            std::memcpy(b.data() + off, &bad, 4);
            writeBytes(st, b);
            break;
        }
        case 15: {
            std::string c = readBytes(dir / "config.json");
            writeBytes(dir / "config.json", c.substr(0, c.size() / 2));
            break;
        }
        case 16:
        case 17:
        case 18:
        case 19: {
            json c = parseJson(readBytes(dir / "config.json")).value();
            if (kind == 16) c = without(c, "d_model");
            if (kind == 17) c["d_model"] = 1000000;
            if (kind == 18) c["encoder_layers"] = 2.5;
            if (kind == 19) c["encoder_ffn_dim"] = 100;
            writeBytes(dir / "config.json", c.dump());
            break;
        }
        case 20: fs::remove(st); break;
        case 21: {
            json v = parseJson(readBytes(dir / "vocab.json")).value();
            writeBytes(dir / "vocab.json", without(v, "\xC4\xA0the").dump());
            break;
        }
        case 22: writeBytes(dir / "generation_config.json", "{\"suppress_tokens\": [1, 2"); break;
        case 23: {
            json g = parseJson(readBytes(dir / "generation_config.json")).value();
            json heads = json::array();
            json pair = json::array();
            pair.push_back(7);
            pair.push_back(0);
            heads.push_back(pair);
            g["alignment_heads"] = heads;
            writeBytes(dir / "generation_config.json", g.dump());
            break;
        }
        case 24: fs::remove(dir / "config.json"); break;
        case 25: {
            json c = parseJson(readBytes(dir / "config.json")).value();
            c["decoder_layers"] = 1e300;
            writeBytes(dir / "config.json", c.dump());
            break;
        }
        }
        auto m = WhisperModel::load(dir);
        QVERIFY2(!m.ok(), "a corrupt checkpoint loaded");
        QVERIFY2(m.message().find(expected.toStdString()) != std::string::npos, m.message().c_str());
        // Every message names the file (or directory) at fault.
        QVERIFY2(m.message().find(dir.string()) != std::string::npos, m.message().c_str());
        fs::remove_all(dir);
    }

    void corruptGgml_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("expected");
        const char* rows[][2] = {
            {"bad magic", "not a ggml model file: magic 0x"},
            {"GGUF file", "GGUF"},
            {"empty file", "too short"},
            {"truncated hyper-parameters", "ends inside the hyper-parameters"},
            {"truncated tensor data", "truncated ggml file: tensor"},
            {"truncated tensor header", "ends inside a tensor header"},
            {"absurd width", "invalid model dimensions: n_audio_state is 1073741824"},
            {"absurd layers", "invalid model dimensions: n_text_layer is 100000"},
            {"lying vocabulary count", "vocabulary holds 1000000000 tokens"},
            {"lying token length", "claims"},
            {"wrong mel header", "mel filterbank is 80 x 200"},
            {"unknown tensor type", "unknown ggml type 13"},
            {"absurd tensor dims", "absurd dimensions"},
            {"negative tensor dim", "has dimension -5"},
            {"too many dims", "has 9 dimensions"},
            {"wrong shape", "has shape [64, 256], expected [256, 64]"},
            {"missing tensor", "tensor 'decoder.ln.bias' is missing"},
            {"NaN weight", "'encoder.blocks.0.mlp.0.weight' holds a non-finite value (NaN or Inf) at element 70 [1, 6]"},
            {"quantised layer norm", "tensor 'decoder.ln.bias' has dtype q8_0, expected f32, f16 or bf16"},
            {"vocabulary-only file", "contains no tensors"},
        };
        int kind = 0;
        for (auto& r : rows) QTest::newRow(r[0]) << kind++ << QString(r[1]);
    }
    void corruptGgml() {
        QFETCH(int, kind);
        QFETCH(QString, expected);
        fs::path file = tmp("corrupt.bin");
        std::string b = readBytes(m_ggml);
        const auto fc1 = locateGgmlTensor(b, "encoder.blocks.0.mlp.0.weight");
        QVERIFY(fc1.data > 0);
        const size_t vocabOffset = 4 + 44 + 8 + 80 * 201 * 4;
        switch (kind) {
        case 0: b[0] = 'x'; break;
        case 1: b.replace(0, 4, "GGUF"); break;
        case 2: b.clear(); break;
        case 3: b.resize(20); break;
        case 4: b.resize(b.size() - 100); break;
        case 5: b.resize(fc1.header + 6); break;
        case 6: putI32(b, 4 + 2 * 4, 1 << 30); break;
        case 7: putI32(b, 4 + 8 * 4, 100000); break;
        case 8: putI32(b, vocabOffset, 1000000000); break;
        case 9: putI32(b, vocabOffset + 4, 1 << 30); break;
        case 10: putI32(b, 4 + 44 + 4, 200); break;
        case 11: putI32(b, fc1.header + 8, 13); break;
        case 12:
            putI32(b, fc1.header + 12, 1 << 30);
            putI32(b, fc1.header + 16, 1 << 30);
            break;
        case 13: putI32(b, fc1.header + 12, -5); break;
        case 14: putI32(b, fc1.header, 9); break;
        case 15:  // swap ne[0] and ne[1]: same size, transposed shape
            putI32(b, fc1.header + 12, 256);
            putI32(b, fc1.header + 16, 64);
            break;
        case 16: b.resize(locateGgmlTensor(b, "decoder.ln.bias").header); break;
        case 17: {
            const float nan = std::nanf("");
            std::memcpy(b.data() + fc1.data + 70 * 4, &nan, 4);
            break;
        }
        case 18: {
            // decoder.ln.bias [64] stored as q8_0 (two whole blocks): valid ggml, wrong dtype.
            const auto ln = locateGgmlTensor(b, "decoder.ln.bias");
            putI32(b, ln.header + 8, 8);
            b = b.substr(0, ln.data) + std::string(size_t(dtypeBytes(DType::Q8_0, 64)), '\0') + b.substr(ln.data + 64 * 4);
            break;
        }
        case 19: file = kSharedData / "ggml-vocab-tiny.bin"; break;
        }
        if (kind != 19) writeBytes(file, b);
        auto m = WhisperModel::load(file);
        QVERIFY2(!m.ok(), "a corrupt ggml file loaded");
        QVERIFY2(m.message().find(expected.toStdString()) != std::string::npos, m.message().c_str());
        QVERIFY2(m.message().find(file.string()) != std::string::npos, m.message().c_str());
    }

    void realVocabularyFiles_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("nVocab");
        QTest::newRow("tiny") << "ggml-vocab-tiny.bin" << 51865;
        QTest::newRow("tiny.en") << "ggml-vocab-tiny.en.bin" << 51864;
    }
    void realVocabularyFiles() {
        QFETCH(QString, file);
        QFETCH(int, nVocab);
        const fs::path path = kSharedData / file.toStdString();
        auto m = WhisperModel::load(path);
        QVERIFY(!m.ok());
        QVERIFY2(m.message().find("contains no tensors: it holds only the hyper-parameters, mel filters and vocabulary") != std::string::npos,
                 m.message().c_str());
        auto g = openGgml(path);
        QVERIFY2(g.ok(), g.ok() ? "" : g.message().c_str());
        QCOMPARE(g->config.nVocab, nVocab);
        QCOMPARE(g->config.nAudioState, 384);
        QCOMPARE(g->vocabulary.size(), size_t(50257));
        QVERIFY(g->tensors.empty());
        QCOMPARE(g->melFilters.size(), size_t(80 * 201));
    }

    // Cross-implementation: the reference harness (Python: NumPy + torch + transformers) commits
    // scheme vectors and checkpoints written by transformers itself (sharded fp16, bf16). They
    // must load here and hold exactly the weights this writer generates for the same seed.
    // The harness's files are committed: missing ones are a failure.
    void referenceHarnessFiles() {
        const fs::path golden = fs::path(HEARSAY_TEST_DATA_DIR) / "golden";
        QVERIFY2(fs::exists(golden / "init_vectors.json") && fs::exists(golden / "checkpoints.json"),
                 "tests/data/golden (the reference harness's output) is missing");
        auto vectors = parseJson(readTextFile(golden / "init_vectors.json").value());
        QVERIFY(vectors.ok());
        int checked = 0;
        for (const json& v : vectors.value()["vectors"]) {
            // Seeds up to 2^64 - 1 (the reader keeps unsigned 64-bit integers).
            const float value = initValue(v.at("seed").get<uint64_t>(), v.at("name").get<std::string>(),
                                          v.at("index").get<uint64_t>(), v.at("mean").get<double>(), v.at("std").get<double>());
            uint32_t bits;
            std::memcpy(&bits, &value, 4);
            char hex[16];
            std::snprintf(hex, sizeof hex, "%08x", bits);
            QVERIFY2(std::string(hex) == v["bits"].get<std::string>(), (v.dump() + " gives " + hex).c_str());
            ++checked;
        }
        QCOMPARE(checked, int(vectors.value()["vectors"].size()));

        auto info = parseJson(readTextFile(golden / "checkpoints.json").value());
        QVERIFY(info.ok());
        const uint64_t seed = info.value()["seed"].get<uint64_t>();
        for (const auto& [name, entry] : info.value()["checkpoints"].items()) {
            const fs::path dir = fs::path(HEARSAY_TEST_DATA_DIR) / "models" / name;
            auto m = WhisperModel::load(dir);
            QVERIFY2(m.ok(), m.ok() ? "" : m.message().c_str());
            const DType expected = entry["dtype"].get<std::string>() == "bfloat16" ? DType::BF16 : DType::F16;
            WhisperWeights copy = m.value()->weights();
            for (const auto& spec : whisperTensorSpecs(m.value()->config(), &copy)) {
                const TensorView& view = *spec.target;
                QCOMPARE(view.dtype, expected);
                auto values = toFloat(view);
                for (size_t i = 0; i < values.size(); ++i) {
                    const float f = initValue(seed, spec.hfName, i, spec.initMean, spec.initStd);
                    const float rounded = expected == DType::BF16 ? bf16ToFloat(floatToBf16(f)) : halfToFloat(floatToHalf(f));
                    QVERIFY2(values[i] == rounded, (name + ": " + spec.hfName + " element " + std::to_string(i)).c_str());
                }
            }
        }
    }

    void cliMakeTestModel() {
        QProcess p;
        const fs::path out = tmp("cli-model.bin");
        p.start(HEARSAY_CLI_PATH, {"make-test-model", "--dims", "64x2x2", "--seed", "7", "--format", "ggml", "--dtype", "q8_0",
                                   QString::fromStdString(out.string())});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        auto m = WhisperModel::load(out);
        QVERIFY2(m.ok(), m.ok() ? "" : m.message().c_str());
        QCOMPARE(m.value()->weights().decoderLayers[1].fc1.weight.dtype, DType::Q8_0);
        fs::remove(out);

        const QStringList bad[] = {{"make-test-model", "--dims", "huge", "--format", "hf", "x"},
                                   {"make-test-model", "--dims", "tiny", "--format", "onnx", "x"},
                                   {"make-test-model", "--dims", "tiny", "--format", "hf", "--dtype", "q8_0", "x"},
                                   {"make-test-model", "--dims", "tiny", "--format", "hf", "--seed", "-1", "x"},
                                   {"make-test-model", "--dims", "tiny", "--format", "ggml", "--vocab", "/nonexistent", "x"}};
        const char* messages[] = {"unknown model size 'huge'", "--format: onnx not in {hf,ggml}", "not q8_0", "--seed: '-1'",
                                  "/nonexistent"};
        for (size_t i = 0; i < std::size(bad); ++i) {
            p.start(HEARSAY_CLI_PATH, bad[i]);
            QVERIFY(p.waitForFinished(60000));
            QVERIFY(p.exitCode() != 0);
            const QByteArray err = p.readAllStandardError();
            QVERIFY2(err.contains(messages[i]), err.constData());
        }
    }
};

QTEST_APPLESS_MAIN(TestModelFiles)
#include "tst_model_files.moc"
