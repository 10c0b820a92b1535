// CTranslate2 model directories: the real tiny.en and base (written by ctranslate2's own converter)
// load with the right dimensions, settings and vocabulary; a random-weight model written in each
// dtype (float32/16, bfloat16, int8, int16) loads back to the same weights; every kind of damage to
// model.bin, config.json or the vocabulary is refused with a message naming the file and problem.
#include "real_models.h"

#include "core/model/ctranslate2_file.h"
#include "core/model/model_conversion.h"
#include "core/model/model_tokenizer.h"
#include "core/model/test_model.h"
#include "core/model/whisper_model.h"
#include "core/model/whisper_tensors.h"
#include "core/util/json_text.h"
#include "core/util/mapped_file.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>

using nlohmann::json;

using namespace hearsay;
namespace fs = std::filesystem;

namespace {

std::string readBytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

// Every weight as float32, by Hugging Face name.
std::map<std::string, std::vector<float>> floatWeights(const WhisperModel& m) {
    WhisperWeights w = m.weights();
    std::map<std::string, std::vector<float>> out;
    for (const auto& spec : whisperTensorSpecs(m.config(), &w)) {
        std::vector<float> v(size_t(spec.target->elements()));
        convertToFloat(*spec.target, v.data());
        out[spec.hfName] = std::move(v);
    }
    return out;
}

// Byte offsets in a model.bin, found by walking it: where the first variable's type and size are.
struct Layout {
    size_t revision = 0;      // uint32 spec revision
    size_t firstType = 0;     // uint8 dtype of the first variable
    size_t firstBytes = 0;    // uint32 payload size of the first variable
};
Layout layoutOf(const std::string& b) {
    Layout l;
    uint16_t specLength;
    std::memcpy(&specLength, b.data() + 4, 2);
    l.revision = 6 + specLength;
    size_t at = l.revision + 8;  // revision, variable count
    uint16_t nameLength;
    std::memcpy(&nameLength, b.data() + at, 2);
    at += 2 + nameLength;
    const uint8_t rank = uint8_t(b[at]);
    at += 1 + 4 * rank;
    l.firstType = at;
    l.firstBytes = at + 1;
    return l;
}

} // namespace

class TestCTranslate2Model : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    fs::path m_hf;   // a random-weight model (64 wide, 2+2 layers), Hugging Face f32
    fs::path m_ct2;  // the same as CTranslate2 float16

    fs::path tmp(const std::string& name) const { return fs::path(m_tmp.path().toStdString()) / name; }

    // A copy of m_ct2 whose model.bin is rewritten from its variables, changed by `edit`.
    fs::path rewritten(const std::string& name, const std::function<void(std::vector<Ct2Variable>&, std::vector<std::pair<std::string, std::string>>&)>& edit) {
        const fs::path dir = tmp(name);
        fs::remove_all(dir);
        fs::copy(m_ct2, dir);
        auto file = openCTranslate2(m_ct2 / "model.bin");
        if (!file) qFatal("%s", file.message().c_str());
        std::vector<Ct2Variable> variables;
        for (const auto& [n, v] : file->variables) variables.push_back(v);
        std::vector<std::pair<std::string, std::string>> aliases(file->aliases.begin(), file->aliases.end());
        edit(variables, aliases);
        auto writer = Ct2Writer::create(dir / "model.bin", file->spec, file->specRevision, uint32_t(variables.size()));
        if (!writer) qFatal("%s", writer.message().c_str());
        for (const auto& v : variables) {
            if (auto ok = writer.value()->write(v.name, v.type, v.shape, v.data, v.bytes); !ok) qFatal("%s", ok.message().c_str());
        }
        if (auto ok = writer.value()->finish(aliases); !ok) qFatal("%s", ok.message().c_str());
        return dir;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        m_hf = tmp("hf");
        TestModelOptions o;
        o.dims = "64x2x2";
        o.seed = 7;
        o.vocabularyFile = HEARSAY_SHARED_DATA_DIR "/ggml-vocab-tiny.bin";
        auto made = makeTestModel(o, m_hf);
        QVERIFY2(made, made ? "" : made.message().c_str());
        auto model = WhisperModel::load(m_hf);
        QVERIFY2(model, model ? "" : model.message().c_str());
        m_ct2 = tmp("ct2-f16");
        ConversionOptions c;
        c.format = ModelFormat::CTranslate2;
        c.dtype = DType::F16;
        auto converted = convertModel(*model.value(), m_ct2, c);
        QVERIFY2(converted, converted ? "" : converted.message().c_str());
    }

    // The files ctranslate2's own converter wrote for faster-whisper.
    void realModelsLoad_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("vocab");
        QTest::newRow("tiny.en") << "tiny.en" << 384 << 4 << 51864;
        QTest::newRow("base") << "base" << 512 << 6 << 51865;
    }
    void realModelsLoad() {
        QFETCH(QString, name);
        QFETCH(int, width);
        QFETCH(int, layers);
        QFETCH(int, vocab);
        const QString missing = real_models::missing(name.toStdString());
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        const fs::path dir = real_models::directory() / name.toStdString();
        auto m = WhisperModel::load(dir);
        QVERIFY2(m, m ? "" : m.message().c_str());
        const WhisperModel& model = *m.value();
        QCOMPARE(model.format(), ModelFormat::CTranslate2);
        QCOMPARE(model.config().nAudioState, width);
        QCOMPARE(model.config().nTextState, width);
        QCOMPARE(model.config().nAudioLayer, layers);
        QCOMPARE(model.config().nTextLayer, layers);
        QCOMPARE(model.config().nAudioHead, width / 64);
        QCOMPARE(model.config().nVocab, vocab);
        QCOMPARE(model.config().nMels, 80);
        QCOMPARE(model.config().nAudioCtx, 1500);
        QCOMPARE(model.config().nTextCtx, 448);
        QCOMPARE(model.vocabulary().size(), size_t(vocab == 51864 ? 50256 : 50257));
        QCOMPARE(model.weights().tokenEmbedding.dtype, DType::F16);
        // config.json's alignment heads (the official ones, not the derived last-half default).
        auto config = parseJson(readBytes(dir / "config.json"));
        QVERIFY(config);
        QCOMPARE(model.generation().alignmentHeads.size(), config.value()["alignment_heads"].size());
        QVERIFY(model.generation().fromGenerationConfig);
        if (model.config().isMultilingual()) QCOMPARE(model.generation().languageTokens.at("<|de|>"), 50261);
        // Opening the model.bin itself, or config.json, means the directory.
        for (const char* file : {"model.bin", "config.json"}) {
            auto again = WhisperModel::load(dir / file);
            QVERIFY2(again, again ? "" : again.message().c_str());
            QCOMPARE(again.value()->format(), ModelFormat::CTranslate2);
        }
        // The vocabulary files agree: vocabulary.txt (read first) and tokenizer.json.
        const fs::path copy = tmp("vocab-" + name.toStdString());
        fs::create_directories(copy);
        for (const char* f : {"model.bin", "config.json", "tokenizer.json"}) fs::create_symlink(dir / f, copy / f);
        auto viaTokenizerJson = WhisperModel::load(copy);
        QVERIFY2(viaTokenizerJson, viaTokenizerJson ? "" : viaTokenizerJson.message().c_str());
        QCOMPARE(viaTokenizerJson.value()->vocabulary().strings(), model.vocabulary().strings());
    }

    // Written in each dtype, read back: the same weights (to the dtype's rounding).
    void dtypesRoundTrip_data() {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<double>("tolerance");  // relative to each row's max |w| for int8/int16, absolute otherwise
        QTest::newRow("float32") << "f32" << 0.0;
        QTest::newRow("float16") << "f16" << 1e-3;
        QTest::newRow("bfloat16") << "bf16" << 1e-2;
        QTest::newRow("int8") << "int8" << 0.5 / 127.0;
        QTest::newRow("int16") << "int16" << 0.5 / 1024.0;
    }
    void dtypesRoundTrip() {
        QFETCH(QString, dtype);
        QFETCH(double, tolerance);
        auto source = WhisperModel::load(m_hf);
        QVERIFY(source);
        ConversionOptions c;
        c.format = ModelFormat::CTranslate2;
        if (dtype == "int8" || dtype == "int16") {
            c.ct2IntegerBits = dtype == "int8" ? 8 : 16;
            c.dtype = DType::F32;
        } else {
            c.dtype = parseDtype(dtype.toStdString()).value();
        }
        const fs::path dir = tmp("rt-" + dtype.toStdString());
        auto ok = convertModel(*source.value(), dir, c);
        QVERIFY2(ok, ok ? "" : ok.message().c_str());
        auto loaded = WhisperModel::load(dir);
        QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
        QCOMPARE(loaded.value()->vocabulary().strings(), source.value()->vocabulary().strings());
        const auto a = floatWeights(*source.value()), b = floatWeights(*loaded.value());
        QCOMPARE(a.size(), b.size());
        for (const auto& [name, values] : a) {
            const auto& got = b.at(name);
            QCOMPARE(got.size(), values.size());
            const bool quantised = c.ct2IntegerBits != 0 && name.find("layer_norm") == std::string::npos &&
                                   name.find("embed_positions") == std::string::npos && name.size() > 7 &&
                                   name.compare(name.size() - 7, 7, ".weight") == 0;
            // int8 rounds within half a step of each row's scale, int16 of the tensor's: bounded by the
            // tensor's max |w| either way.
            double amax = 0.0;
            for (float v : values) amax = std::max(amax, double(std::abs(v)));
            for (size_t i = 0; i < values.size(); ++i) {
                const double allowed = quantised ? tolerance * amax + 1e-7 : tolerance * std::max(1.0, double(std::abs(values[i])));
                if (std::abs(double(got[i]) - double(values[i])) > allowed) {
                    QFAIL(qPrintable(QStringLiteral("%1 element %2: %3, written %4 (%5)").arg(QString::fromStdString(name)).arg(i)
                                         .arg(got[i]).arg(values[i]).arg(dtype)));
                }
            }
        }
    }

    // Damage of every kind, each refused with a message naming the problem.
    void damagedModels_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("expected");
        const char* rows[][2] = {
            {"truncated model.bin", "truncated"},
            {"payload size lies", "declares"},
            {"unknown dtype", "unknown dtype id 9"},
            {"another spec", "a CTranslate2 \"TransformerSpec\" model, not a Whisper model"},
            {"newer binary version", "binary version 7 is not a CTranslate2 model.bin Hearsay reads"},
            {"newer spec revision", "WhisperSpec revision 4 is newer"},
            {"bytes after the end", "bytes follow the last alias"},
            {"missing weight", "variable 'decoder/layer_1/ffn/linear_1/bias' (a Whisper weight) is missing"},
            {"wrong shape", "has shape"},
            {"unknown setting", "unknown setting 'decoder/rotary_dim'"},
            {"tanh GELU", "'decoder/activation' (the MLP activation (3: exact GELU)) is 1, Whisper has 3"},
            {"key bias", "Whisper's key projections have no bias"},
            {"untied output projection", "differs from decoder/embeddings/weight"},
            {"alias to nothing", "alias 'decoder/projection/weight' names 'decoder/nothing', which is not a variable"},
            {"int8 without scale", "has no 'encoder/layer_0/ffn/linear_0/weight_scale'"},
            {"NaN weight", "holds a non-finite value"},
            {"unexpected variable", "unexpected variable 'encoder/extra'"},
            {"no vocabulary", "no vocabulary.txt, vocabulary.json or tokenizer.json beside model.bin"},
            {"English vocabulary for a multilingual model", "a vocabulary for another model"},
            {"malformed config.json", "config.json: malformed JSON"},
            {"alignment head out of range", "alignment head [5,0] is not a [layer, head] of this model"},
            {"language id not a language", "\"lang_ids\" holds 50000, which is not a language token"},
            {"empty model.bin", "truncated: the binary version needs 4 bytes"},
        };
        int kind = 0;
        for (auto& r : rows) QTest::newRow(r[0]) << kind++ << QString(r[1]);
    }
    void damagedModels() {
        QFETCH(int, kind);
        QFETCH(QString, expected);
        fs::path dir = tmp("damaged-" + std::to_string(kind));
        fs::remove_all(dir);
        fs::copy(m_ct2, dir);
        const fs::path bin = dir / "model.bin";
        std::string b = readBytes(bin);
        const Layout at = layoutOf(b);
        auto setScalar = [](std::vector<Ct2Variable>& vars, const std::string& name, int8_t value) {
            static std::vector<std::unique_ptr<int8_t>> keep;
            keep.push_back(std::make_unique<int8_t>(value));
            for (auto& v : vars)
                if (v.name == name) v.data = reinterpret_cast<const std::byte*>(keep.back().get());
        };
        static std::vector<std::vector<std::byte>> buffers;  // data of replaced variables
        auto replaceData = [](Ct2Variable& v, const std::function<void(std::vector<std::byte>&)>& change) {
            buffers.emplace_back(v.data, v.data + v.bytes);
            change(buffers.back());
            v.data = buffers.back().data();
        };
        switch (kind) {
        case 0: b.resize(b.size() / 2); break;
        case 1: b[at.firstBytes] = char(uint8_t(b[at.firstBytes]) + 1); break;
        case 2: b[at.firstType] = 9; break;
        case 3: {
            // Replace "WhisperSpec" (11 chars) by "TransformerSpec" (15): rebuild the header.
            const std::string rest = b.substr(6 + 12);
            const std::string name = "TransformerSpec";
            std::string head = b.substr(0, 4);
            const uint16_t length = uint16_t(name.size() + 1);
            head.append(reinterpret_cast<const char*>(&length), 2);
            head += name;
            head.push_back('\0');
            b = head + rest;
            break;
        }
        case 4: b[0] = 7; break;
        case 5: b[at.revision] = 4; break;
        case 6: b += "junk"; break;
        case 7: dir = rewritten("d7", [](auto& vars, auto&) {
                    std::erase_if(vars, [](const Ct2Variable& v) { return v.name == "decoder/layer_1/ffn/linear_1/bias"; });
                });
            break;
        case 8: dir = rewritten("d8", [](auto& vars, auto&) {
                    for (auto& v : vars)
                        if (v.name == "encoder/conv2/weight") v.shape = {64, 32, 6};
                });
            break;
        case 9: dir = rewritten("d9", [](auto& vars, auto&) {
                    Ct2Variable extra = vars.front();
                    for (const auto& v : vars)
                        if (v.name == "decoder/activation") extra = v;
                    extra.name = "decoder/rotary_dim";
                    vars.push_back(extra);
                });
            break;
        case 10: dir = rewritten("d10", [&](auto& vars, auto&) { setScalar(vars, "decoder/activation", 1); }); break;
        case 11: dir = rewritten("d11", [&](auto& vars, auto&) {
                     for (auto& v : vars) {
                         if (v.name != "decoder/layer_0/self_attention/linear_0/bias") continue;
                         replaceData(v, [&](std::vector<std::byte>& d) { d[v.bytes / 3 + 1] = std::byte{0x3c}; });
                     }
                 });
            break;
        case 12: dir = rewritten("d12", [&](auto& vars, auto& aliases) {
                     aliases.clear();
                     for (const auto& v : vars) {
                         if (v.name != "decoder/embeddings/weight") continue;
                         Ct2Variable p = v;
                         p.name = "decoder/projection/weight";
                         replaceData(p, [](std::vector<std::byte>& d) { d[0] ^= std::byte{1}; });
                         vars.push_back(p);
                         break;
                     }
                 });
            break;
        case 13: {
            // The alias names a variable that does not exist: patched in the file's last string.
            const std::string target = "decoder/embeddings/weight";
            const size_t pos = b.rfind(target);
            b.replace(pos, target.size(), "decoder/nothing");
            const uint16_t length = uint16_t(std::string("decoder/nothing").size() + 1);
            std::memcpy(b.data() + pos - 2, &length, 2);
            break;
        }
        case 14: dir = rewritten("d14", [&](auto& vars, auto&) {
                     for (auto& v : vars) {
                         if (v.name != "encoder/layer_0/ffn/linear_0/weight") continue;
                         static std::vector<std::byte> int8(v.bytes / 2, std::byte{1});
                         v.type = Ct2Type::I8;
                         v.data = int8.data();
                         v.bytes = int8.size();
                     }
                 });
            break;
        case 15: dir = rewritten("d15", [&](auto& vars, auto&) {
                     for (auto& v : vars) {
                         if (v.name != "encoder/layer_1/ffn/linear_1/weight") continue;
                         replaceData(v, [](std::vector<std::byte>& d) { d[10] = std::byte{0x00}; d[11] = std::byte{0x7e}; });  // f16 NaN
                     }
                 });
            break;
        case 16: dir = rewritten("d16", [](auto& vars, auto&) {
                     Ct2Variable extra;
                     for (const auto& v : vars)
                         if (v.name == "encoder/layer_norm/gamma") extra = v;
                     extra.name = "encoder/extra";
                     vars.push_back(extra);
                 });
            break;
        case 17:
            for (const char* f : {"vocabulary.txt", "tokenizer.json"}) fs::remove(dir / f);
            break;
        case 18:
            fs::remove(dir / "tokenizer.json");
            fs::copy_file(real_models::directory() / "tiny.en" / "vocabulary.txt", dir / "vocabulary.txt",
                          fs::copy_options::overwrite_existing);
            break;
        case 19: writeBytes(dir / "config.json", "{\"alignment_heads\": [[1, 0]"); break;
        case 20: writeBytes(dir / "config.json", "{\"alignment_heads\": [[5, 0]]}"); break;
        case 21: writeBytes(dir / "config.json", "{\"lang_ids\": [50259, 50000]}"); break;
        case 22: b.clear(); break;
        }
        if (kind <= 6 || kind == 13 || kind == 22) writeBytes(bin, b);
        auto m = WhisperModel::load(dir);
        QVERIFY2(!m, "a damaged model loaded");
        QVERIFY2(m.message().find(expected.toStdString()) != std::string::npos,
                 qPrintable(QStringLiteral("message \"%1\" lacks \"%2\"").arg(QString::fromStdString(m.message()), expected)));
        // Every message names the file it is about.
        QVERIFY2(m.message().find(dir.string()) != std::string::npos, m.message().c_str());
    }
};

QTEST_APPLESS_MAIN(TestCTranslate2Model)
#include "tst_ctranslate2_model.moc"
