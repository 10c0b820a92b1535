// Word timestamps on real pretrained weights (CTranslate2 tiny.en and base,
// scripts/fetch_real_models.sh) against faster-whisper 1.2.1 with word_timestamps=True
// (tests/data/real/words-*.json, from tests/reference/gen_word_golden.py; greedy, temperature 0,
// no VAD): on real and espeak-ng speech the words are the reference's, each start and end within
// 0.02 s. The words of a run whose cross-attention cache is switched off after its first window
// are those of a run with the cache on (greedy and beam search). CTest label `real`.
#include "real_models.h"

#include "core/decoding/transcriber.h"
#include "core/engine/controlled_session.h"
#include "core/engine/engine.h"
#include "core/model/model_tokenizer.h"
#include "core/model/whisper_model.h"
#include "core/nn/inference_session.h"
#include "core/text/tokenizer.h"
#include "core/util/json_text.h"
#include "core/util/mapped_file.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

using nlohmann::json;

using namespace hearsay;

namespace {

constexpr double kTolerance = 0.02 + 1e-9;  // seconds, start and end of every word
const char* const kModels[] = {"tiny.en", "base"};

struct LoadedModel {
    std::shared_ptr<const WhisperModel> model;
    std::unique_ptr<Tokenizer> tokenizer;
    std::unique_ptr<ControlledSession> session;  // its switches are set through its controls
    bool halfCrossCache = false;                 // the backend keeps the cross cache in half
    json golden;
};

// The options faster-whisper ran with (gen_word_golden.py).
TranscribeOptions referenceOptions(int beamSize) {
    TranscribeOptions o;
    o.decoding.beamSize = beamSize;
    o.decoding.beamRules = BeamSearchRules::CTranslate2;
    o.temperatures = {0.0f};
    o.conditionOnPreviousText = true;
    o.cutRepetitionLoops = false;
    o.wordTimestamps = true;
    return o;
}

std::vector<Word> allWords(const Transcript& t) {
    std::vector<Word> words;
    for (const Segment& s : t.segments) words.insert(words.end(), s.words.begin(), s.words.end());
    return words;
}

} // namespace

class TestWordTimestamps : public QObject {
    Q_OBJECT

    std::map<std::string, LoadedModel> m_models;
    std::map<std::string, std::vector<float>> m_clips;
    QTemporaryDir m_speech;
    QString m_setupFailure;

private slots:
    void initTestCase() {
        for (const char* name : kModels) {
            const QString missing = real_models::missing(name);
            if (!missing.isEmpty()) {
                m_setupFailure += missing + "\n";
                continue;
            }
            LoadedModel m;
            auto model = WhisperModel::load(real_models::directory() / name);
            QVERIFY2(model, model ? "" : model.message().c_str());
            m.model = model.value();
            auto tokenizer = tokenizerForModel(*m.model);
            QVERIFY2(tokenizer, tokenizer ? "" : tokenizer.message().c_str());
            m.tokenizer = std::make_unique<Tokenizer>(std::move(tokenizer.value()));
            auto engine = Engine::create(m.model, std::make_shared<Tokenizer>(*m.tokenizer),
                                         EngineOptions{BackendKind::Cpu, BackendOptions{2, 0}});
            QVERIFY2(engine, engine ? "" : engine.message().c_str());
            SessionOptions options;
            options.maxBeams = 5;
            m.halfCrossCache = engine->backend().kvElementBytes() == 2;
            auto session = engine->createSession(options);
            QVERIFY2(session, session ? "" : session.message().c_str());
            m.session = std::move(session.value());
            auto text = readTextFile(std::string(HEARSAY_TEST_DATA_DIR) + "/real/words-" + name + ".json");
            QVERIFY2(text, text ? "" : text.message().c_str());
            auto golden = parseJson(text.value());
            QVERIFY2(golden, golden ? "" : golden.message().c_str());
            m.golden = golden.value();
            m_models[name] = std::move(m);
        }
        QVERIFY(m_speech.isValid());
        const QString rendered = real_models::renderSpeech(m_speech.path());
        QVERIFY2(rendered.isEmpty(), qPrintable(rendered));
        for (const char* name : {"jfk", "speech-30s-a", "speech-30s-b"}) {
            m_clips[name] = real_models::readClip(QStringLiteral(HEARSAY_SHARED_DATA_DIR "/%1.wav").arg(name));
            QVERIFY2(!m_clips[name].empty(), name);
        }
        for (const QString& file : QDir(m_speech.path()).entryList({"en-*.wav"})) {
            const std::string id = QFileInfo(file).completeBaseName().toStdString();
            m_clips[id] = real_models::readClip(m_speech.path() + "/" + file);
            QVERIFY2(!m_clips[id].empty(), qPrintable(file));
        }
    }

    // Every word of faster-whisper's run, in order, with its start and end within 0.02 s.
    void agreement_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("clipName");
        for (const char* model : kModels) {
            const std::string path = std::string(HEARSAY_TEST_DATA_DIR) + "/real/words-" + model + ".json";
            auto text = readTextFile(path);
            auto golden = text ? parseJson(text.value()) : Result<json>(text.error());
            if (!golden) {
                QTest::newRow(model) << model << QString();  // reported by the test itself
                continue;
            }
            for (const auto& [name, entry] : golden.value()["clips"].items()) {
                // base on four clips (the two longer recordings and two sentences) unless the scope is full
                // (real_models::fullScope()); tiny.en on every clip.
                const bool baseInDefaultScope = name == "jfk" || name == "speech-30s-a" || name == "en-04" || name == "en-09";
                if (std::string(model) == "base" && !real_models::fullScope() && !baseInDefaultScope) continue;
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(model, QString::fromStdString(name))))
                    << model << QString::fromStdString(name);
            }
        }
    }

    void agreement() {
        QFETCH(QString, model);
        QFETCH(QString, clipName);
        QVERIFY2(m_setupFailure.isEmpty(), qPrintable(m_setupFailure));
        QVERIFY2(!clipName.isEmpty(), "the golden file could not be read");
        LoadedModel& m = m_models.at(model.toStdString());
        const std::string name = clipName.toStdString();
        QVERIFY2(m_clips.count(name), qPrintable("no audio for clip " + clipName));
        const std::vector<float>& samples = m_clips.at(name);
        const json& entry = m.golden["clips"][name];
        QVERIFY2(real_models::checksum(samples) == entry["checksum"].get<std::string>(),
                 "the clip differs from the golden's (espeak-ng or sox differ: regenerate with gen_word_golden.py)");

        auto transcript = transcribe(*m.session, *m.tokenizer, samples, referenceOptions(0));
        QVERIFY2(transcript, transcript ? "" : transcript.message().c_str());
        const std::vector<Word> ours = allWords(transcript.value());
        std::vector<Word> theirs;
        for (const json& segment : entry["segments"]) {
            for (const json& w : segment["words"]) {
                const auto& a = w;
                theirs.push_back({a[0].get<std::string>(), a[1].get<double>(), a[2].get<double>(), a[3].get<double>()});
            }
        }
        std::vector<double> errors;
        bool identical = ours.size() == theirs.size();
        for (size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i) {
            identical = identical && ours[i].word == theirs[i].word;
            if (ours[i].word != theirs[i].word) continue;
            errors.push_back(std::abs(ours[i].start - theirs[i].start));
            errors.push_back(std::abs(ours[i].end - theirs[i].end));
        }
        std::vector<double> sorted = errors;
        std::sort(sorted.begin(), sorted.end());
        const double median = sorted.empty() ? 0.0 : sorted[sorted.size() / 2];
        const double worst = sorted.empty() ? 0.0 : sorted.back();
        qInfo("agreement %s %s: words identical %s (%zu ours, %zu faster-whisper), timing error median %.3f s, max %.3f s",
              qPrintable(model), name.c_str(), identical ? "yes" : "no", ours.size(), theirs.size(), median, worst);
        for (size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i) {
            QVERIFY2(ours[i].word == theirs[i].word,
                     qPrintable(QStringLiteral("word %1: '%2', faster-whisper '%3'")
                                    .arg(i).arg(QString::fromStdString(ours[i].word), QString::fromStdString(theirs[i].word))));
            QVERIFY2(std::abs(ours[i].start - theirs[i].start) <= kTolerance &&
                         std::abs(ours[i].end - theirs[i].end) <= kTolerance,
                     qPrintable(QStringLiteral("word %1 '%2': %3-%4 s, faster-whisper %5-%6 s")
                                    .arg(i).arg(QString::fromStdString(ours[i].word))
                                    .arg(ours[i].start).arg(ours[i].end).arg(theirs[i].start).arg(theirs[i].end)));
            QVERIFY2(std::abs(ours[i].probability - theirs[i].probability) <= 0.02,
                     qPrintable(QStringLiteral("word %1 '%2': probability %3, faster-whisper %4")
                                    .arg(i).arg(QString::fromStdString(ours[i].word))
                                    .arg(ours[i].probability).arg(theirs[i].probability)));
        }
        QCOMPARE(ours.size(), theirs.size());
    }

    // The cross-attention cache switched off after the first window (through the session's
    // controls, as the GUI's switch; the rest re-project the encoder output per layer) gives the
    // words of a run with the cache on, greedy and beams.
    void crossCacheSwitchedOffMidRun_data() {
        QTest::addColumn<int>("beamSize");
        QTest::newRow("greedy") << 0;
        QTest::newRow("beam5") << 5;
    }

    void crossCacheSwitchedOffMidRun() {
        QFETCH(int, beamSize);
        QVERIFY2(m_setupFailure.isEmpty(), qPrintable(m_setupFailure));
        LoadedModel& m = m_models.at("tiny.en");
        const std::vector<float>& samples = m_clips.at("speech-30s-a");  // two windows

        m.session->controls()->crossCache = true;
        auto on = transcribe(*m.session, *m.tokenizer, samples, referenceOptions(beamSize));
        QVERIFY2(on, on ? "" : on.message().c_str());
        int windows = 0;
        auto switched = transcribe(*m.session, *m.tokenizer, samples, referenceOptions(beamSize),
                                   [&](double, const std::vector<Segment>&) {
                                       // As the GUI's switch: applied at the session's next call.
                                       if (++windows == 1) m.session->controls()->crossCache = false;
                                   });
        const bool stillOn = m.session->crossAttentionCache();
        m.session->controls()->crossCache = true;
        QVERIFY2(switched, switched ? "" : switched.message().c_str());
        QVERIFY(!stillOn);
        QVERIFY2(windows >= 2, "the clip must span several windows");
        const std::vector<Word> a = allWords(on.value()), b = allWords(switched.value());
        QVERIFY(a.size() > 80);
        QCOMPARE(b.size(), a.size());
        // The programs' default keeps the cache in half (CpuBackend, Fp16) while the layers without
        // it project the encoder output in float32: probabilities then agree to the half rounding
        // of the keys and values, not to float32's.
        const bool halfCache = m.halfCrossCache;
        const double tolerance = halfCache ? 2e-3 : 1e-5;
        double worst = 0.0;
        for (size_t i = 0; i < a.size(); ++i) {
            QVERIFY2(b[i].word == a[i].word, qPrintable(QStringLiteral("word %1").arg(i)));
            QCOMPARE(b[i].start, a[i].start);
            QCOMPARE(b[i].end, a[i].end);
            worst = std::max(worst, double(std::abs(b[i].probability - a[i].probability)));
        }
        qInfo("largest probability difference: %.2e (cross cache in %s)", worst, halfCache ? "half" : "float32");
        QVERIFY(worst < tolerance);
    }
};

QTEST_GUILESS_MAIN(TestWordTimestamps)
#include "tst_word_timestamps.moc"
