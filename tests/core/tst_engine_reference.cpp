// The engine against the independent reference (transformers / openai-whisper, run by
// tests/reference/generate_golden.py on the same deterministic random weights): encoder output,
// decoder logits along a fixed prefix and language probabilities, on the three speech clips
// through the C++ frontend. Golden files: tests/data/golden/<model>/ (see tests/reference/README.md).
#include "core/util/json_text.h"
#include "core/util/mapped_file.h"
#include "core/util/npy.h"
#include "engine_test_model.h"

#include <QtTest>

#include <cmath>
#include <filesystem>

using nlohmann::json;

using namespace hearsay;

namespace {

constexpr double kTolerance = 1e-4;

std::filesystem::path goldenDir(const QString& model) {
    return std::filesystem::path(HEARSAY_TEST_DATA_DIR) / "golden" / model.toStdString();
}

// max |a - b| / max |b| over matching elements.
struct Relative {
    double diff = 0, scale = 0;
    void add(double mine, double reference) {
        diff = std::max(diff, std::abs(mine - reference));
        scale = std::max(scale, std::abs(reference));
    }
    double value() const { return scale > 0 ? diff / scale : diff; }
};

} // namespace

class TestEngineReference : public QObject {
    Q_OBJECT
private slots:
    void matchesReference_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("small (64x2x2, multilingual)") << "small";
        QTest::newRow("tiny (384x4x6)") << "tiny";
        QTest::newRow("small-en (English-only)") << "small-en";
        QTest::newRow("small-v3 (128 mels, 51866)") << "small-v3";
    }
    void matchesReference() {
        QFETCH(QString, model);
        const auto dir = goldenDir(model);
        // The goldens are committed (tests/reference makes them): missing ones are a failure.
        QVERIFY2(std::filesystem::exists(dir / "manifest.json"),
                 qPrintable("no golden files at " + QString::fromStdString(dir.string())));
        auto text = readTextFile(dir / "manifest.json");
        QVERIFY2(text.ok(), text.ok() ? "" : text.message().c_str());
        auto parsed = parseJson(text.value());
        QVERIFY(parsed.ok());
        const json& manifest = parsed.value();
        const json& dims = manifest["dims"];
        WhisperConfig config;
        config.nMels = int(dims["n_mels"].get<int64_t>());
        config.nAudioCtx = int(dims["n_audio_ctx"].get<int64_t>());
        config.nAudioState = int(dims["n_audio_state"].get<int64_t>());
        config.nAudioHead = int(dims["n_audio_head"].get<int64_t>());
        config.nAudioLayer = int(dims["n_audio_layer"].get<int64_t>());
        config.nVocab = int(dims["n_vocab"].get<int64_t>());
        config.nTextCtx = int(dims["n_text_ctx"].get<int64_t>());
        config.nTextState = int(dims["n_text_state"].get<int64_t>());
        config.nTextHead = int(dims["n_text_head"].get<int64_t>());
        config.nTextLayer = int(dims["n_text_layer"].get<int64_t>());
        QVERIFY(config.validate().ok());

        std::string why;
        const std::vector<LogMel> mels = test::speechClipMels(config.nMels, &why);
        QVERIFY2(!mels.empty(), qPrintable(QString::fromStdString("no speech clips (../shared/data): " + why)));
        QCOMPARE(manifest["clips"].size(), mels.size());

        auto npy = [&](const char* key) {
            auto array = readNpy(dir / manifest["files"][key].get<std::string>());
            if (!array) qFatal("%s", array.message().c_str());
            return std::move(array).value();
        };
        const NpyArray encoderRows = npy("encoder_rows"), rowSum = npy("encoder_row_sum"), rowSumSq = npy("encoder_row_sumsq");
        const NpyArray topIds = npy("logits_top_ids"), topValues = npy("logits_top_values");
        const bool multilingual = manifest["multilingual"].get<bool>();
        const bool hasLastRow = manifest["files"].contains("logits_last_row");

        auto session = InferenceSession::create(test::makeRandomModel(config, uint64_t(manifest["seed"].get<int64_t>())),
                                                test::cpuBackend(2), SessionOptions{});
        QVERIFY2(session.ok(), session.ok() ? "" : session.message().c_str());
        InferenceSession& s = *session.value();

        std::vector<int> prefix;
        for (const json& t : manifest["logits_prefix"]) prefix.push_back(int(t.get<int64_t>()));
        std::vector<int> rows;
        for (const json& r : manifest["encoder_rows"]) rows.push_back(int(r.get<int64_t>()));
        const int d = config.nAudioState, positions = int(prefix.size()), topK = int(topIds.shape[2]);
        QCOMPARE(int(topIds.shape[1]), positions);

        Relative encoderError, sumError, sumSqError, logitsError, lastRowError;
        double languageError = 0;
        for (size_t clip = 0; clip < mels.size(); ++clip) {
            QVERIFY(s.encode(mels[clip]).ok());
            const std::vector<float> encoded = s.encoderOutput();
            for (size_t r = 0; r < rows.size(); ++r) {
                for (int c = 0; c < d; ++c) {
                    encoderError.add(encoded[size_t(rows[r]) * size_t(d) + size_t(c)],
                                     encoderRows.f32[(clip * rows.size() + r) * size_t(d) + size_t(c)]);
                }
            }
            for (int r = 0; r < config.nAudioCtx; ++r) {
                double sum = 0, sumSq = 0;
                for (int c = 0; c < d; ++c) {
                    const double v = encoded[size_t(r) * size_t(d) + size_t(c)];
                    sum += v;
                    sumSq += v * v;
                }
                sumError.add(sum, rowSum.f32[clip * size_t(config.nAudioCtx) + size_t(r)]);
                sumSqError.add(sumSq, rowSumSq.f32[clip * size_t(config.nAudioCtx) + size_t(r)]);
            }

            // Logits at every prefix position, compared at the reference's top-k token ids.
            std::vector<float> logits;
            for (int p = 0; p < positions; ++p) {
                QVERIFY(s.decode({std::vector<int>(prefix.begin(), prefix.begin() + p + 1)}, logits).ok());
                for (int k = 0; k < topK; ++k) {
                    const size_t at = (clip * size_t(positions) + size_t(p)) * size_t(topK) + size_t(k);
                    logitsError.add(logits[size_t(topIds.i64[at])], topValues.f32[at]);
                }
                const size_t top1 = (clip * size_t(positions) + size_t(p)) * size_t(topK);
                const int myBest = int(std::max_element(logits.begin(), logits.end()) - logits.begin());
                if (topValues.f32[top1] - topValues.f32[top1 + 1] > 1e-3) QCOMPARE(myBest, int(topIds.i64[top1]));
            }
            if (hasLastRow && manifest["clips"][clip].get<std::string>() == manifest["logits_last_row_clip"].get<std::string>()) {
                const NpyArray lastRow = npy("logits_last_row");
                QCOMPARE(lastRow.f32.size(), logits.size());
                for (size_t v = 0; v < logits.size(); ++v) lastRowError.add(logits[v], lastRow.f32[v]);
            }

            if (multilingual) {
                // Softmax over the language tokens' logits at the position after <|startoftranscript|>.
                const NpyArray languageProbs = npy("language_probs");
                QVERIFY(s.decode({{int(manifest["special_tokens"]["sot"].get<int64_t>())}}, logits).ok());
                const auto& languages = manifest["special_tokens"]["language_tokens"];
                QCOMPARE(int(languageProbs.shape[1]), int(languages.size()));
                double maxLogit = -1e300, total = 0;
                for (const json& t : languages) maxLogit = std::max(maxLogit, double(logits[size_t(t.get<int64_t>())]));
                for (const json& t : languages) total += std::exp(logits[size_t(t.get<int64_t>())] - maxLogit);
                for (size_t i = 0; i < languages.size(); ++i) {
                    const double p = std::exp(logits[size_t(languages[i].get<int64_t>())] - maxLogit) / total;
                    languageError = std::max(languageError, std::abs(p - languageProbs.f32[clip * languages.size() + i]));
                }
            }
        }
        qInfo("encoder rows %.3g, row sums %.3g, row sums of squares %.3g, top-%d logits %.3g, full logit row %.3g "
              "(relative); language probabilities %.3g (absolute)",
              encoderError.value(), sumError.value(), sumSqError.value(), topK, logitsError.value(), lastRowError.value(),
              languageError);
        QVERIFY(encoderError.value() < kTolerance);
        QVERIFY(sumSqError.value() < kTolerance);
        QVERIFY(sumError.diff < kTolerance * std::sqrt(sumSqError.scale));  // row sums are near zero after the LayerNorm
        QVERIFY(logitsError.value() < kTolerance);
        QVERIFY(lastRowError.value() < kTolerance);
        QVERIFY(languageError < kTolerance);
    }
};

QTEST_APPLESS_MAIN(TestEngineReference)
#include "tst_engine_reference.moc"
