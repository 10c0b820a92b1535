// Hearsay on real pretrained weights (CTranslate2 tiny.en and base, scripts/fetch_real_models.sh)
// and real speech, against faster-whisper 1.2.1 on the same model directories
// (tests/data/real/golden-*.json, from tests/reference/gen_real_golden.py): every window's tokens
// (a difference only at a near-tie of faster-whisper's own decision, margin < 1e-3), the long-form
// segments in text and time, the detected language and its probability, and the word error rates.
// CTest label `real`.
#include "real_models.h"

#include "core/backend/backend.h"
#include "core/decoding/decoding_task.h"
#include "core/decoding/language_detection.h"
#include "core/decoding/temperature_fallback.h"
#include "core/decoding/transcriber.h"
#include "core/frontend/log_mel.h"
#include "core/model/model_tokenizer.h"
#include "core/model/whisper_model.h"
#include "core/nn/inference_session.h"
#include "core/text/tokenizer.h"
#include "core/transcript/word_error_rate.h"
#include "core/util/json.h"
#include "core/util/mapped_file.h"

#include <QtTest>

#include <cmath>
#include <map>
#include <memory>

using namespace hearsay;

namespace {

constexpr double kNearTie = 1e-3;  // faster-whisper's decision margin below which tokens may differ
const char* const kModels[] = {"tiny.en", "base"};
const char* const kModes[] = {"greedy", "beam5"};

struct Clip {
    std::vector<float> samples;
};

struct LoadedModel {
    std::shared_ptr<const WhisperModel> model;
    std::unique_ptr<Tokenizer> tokenizer;
    std::unique_ptr<InferenceSession> session;
    Json golden;
};

std::string joinTokens(const std::vector<int>& tokens, size_t from, size_t count) {
    std::string s;
    for (size_t i = from; i < std::min(tokens.size(), from + count); ++i) s += (s.empty() ? "" : " ") + std::to_string(tokens[i]);
    return s;
}

std::vector<int> intArray(const Json& j) {
    std::vector<int> out;
    for (const Json& v : j.toArray()) out.push_back(int(v.toInt()));
    return out;
}

// The options faster-whisper ran with (gen_real_golden.py): temperature 0 without fallback.
TranscribeOptions referenceOptions(const std::string& mode) {
    TranscribeOptions o;
    o.decoding.beamSize = mode == "beam5" ? 5 : 0;
    o.decoding.beamRules = BeamSearchRules::CTranslate2;
    o.temperatures = {0.0f};
    o.conditionOnPreviousText = true;
    o.cutRepetitionLoops = false;
    return o;
}

} // namespace

class TestRealModels : public QObject {
    Q_OBJECT

    std::map<std::string, LoadedModel> m_models;
    std::map<std::string, Clip> m_clips;
    QTemporaryDir m_speech;
    QString m_setupFailure;

    // The clip's samples, or a failure message when its audio differs from the golden's.
    Clip* clip(const std::string& name, const Json& golden, QString* why) {
        auto it = m_clips.find(name);
        if (it == m_clips.end()) {
            *why = QStringLiteral("no audio for clip '%1'").arg(QString::fromStdString(name));
            return nullptr;
        }
        const std::string expected = golden["clips"][name]["checksum"].toString();
        const std::string got = real_models::checksum(it->second.samples);
        if (got != expected) {
            *why = QStringLiteral("clip '%1' has checksum %2, the golden file %3 (espeak-ng or sox differ from the ones the "
                                  "goldens were made with: regenerate them with tests/reference/gen_real_golden.py)")
                       .arg(QString::fromStdString(name), QString::fromStdString(got), QString::fromStdString(expected));
            return nullptr;
        }
        return &it->second;
    }

    void addRows(bool longFormOnly) {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("clipName");
        for (const char* model : kModels) {
            auto it = m_models.find(model);
            if (it == m_models.end()) {
                QTest::newRow(model) << QString(model) << QString() << QString();  // fails with the setup message
                continue;
            }
            for (const char* mode : kModes) {
                for (const auto& [name, entry] : it->second.golden["clips"].toObject()) {
                    const bool longForm = name == "a-gap-b" || name == "story" || name.rfind("speech-30s", 0) == 0;
                    if (longFormOnly && !longForm) continue;
                    QTest::newRow((std::string(model) + " " + mode + " " + name).c_str())
                        << QString(model) << QString(mode) << QString::fromStdString(name);
                }
            }
        }
    }

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
            QCOMPARE(model.value()->format(), ModelFormat::CTranslate2);
            m.model = model.value();
            auto tokenizer = tokenizerForModel(*m.model);
            QVERIFY2(tokenizer, tokenizer ? "" : tokenizer.message().c_str());
            m.tokenizer = std::make_unique<Tokenizer>(std::move(tokenizer.value()));
            auto backend = createBackend(BackendKind::Cpu, BackendOptions{2, 0});
            QVERIFY2(backend, backend ? "" : backend.message().c_str());
            SessionOptions options;
            options.maxBeams = 5;
            options.threads = 2;
            auto session = InferenceSession::create(m.model, backend.value(), options);
            QVERIFY2(session, session ? "" : session.message().c_str());
            m.session = std::move(session.value());
            const std::string goldenPath = std::string(HEARSAY_TEST_DATA_DIR) + "/real/golden-" + name + ".json";
            auto text = readTextFile(goldenPath);
            QVERIFY2(text, text ? "" : text.message().c_str());
            auto golden = Json::parse(text.value());
            QVERIFY2(golden, golden ? "" : golden.message().c_str());
            m.golden = golden.value();
            m_models[name] = std::move(m);
        }

        // The audio: the shared real speech, the rendered espeak-ng speech, and the long-form joins.
        QVERIFY(m_speech.isValid());
        const QString rendered = real_models::renderSpeech(m_speech.path());
        QVERIFY2(rendered.isEmpty(), qPrintable(rendered));
        for (const char* name : {"jfk", "speech-30s-a", "speech-30s-b"}) {
            m_clips[name].samples = real_models::readClip(QStringLiteral(HEARSAY_SHARED_DATA_DIR "/%1.wav").arg(name));
            QVERIFY2(!m_clips[name].samples.empty(), name);
        }
        for (const QString& file : QDir(m_speech.path()).entryList({"*.wav"})) {
            const std::string id = QFileInfo(file).completeBaseName().toStdString();
            m_clips[id].samples = real_models::readClip(m_speech.path() + "/" + file);
            QVERIFY2(!m_clips[id].samples.empty(), qPrintable(file));
        }
        if (!m_models.empty()) {
            const Json& golden = m_models.begin()->second.golden;
            const double gap = golden["long_gap_seconds"].toDouble(), storyGap = golden["story_gap_seconds"].toDouble();
            std::vector<float>& joined = m_clips["a-gap-b"].samples;
            joined = m_clips["speech-30s-a"].samples;
            joined.resize(joined.size() + size_t(gap * kSampleRate), 0.0f);
            joined.insert(joined.end(), m_clips["speech-30s-b"].samples.begin(), m_clips["speech-30s-b"].samples.end());
            std::vector<float>& story = m_clips["story"].samples;
            for (int k = 1; m_clips.count("story-" + std::to_string(k)); ++k) {
                if (k > 1) story.resize(story.size() + size_t(storyGap * kSampleRate), 0.0f);
                const auto& part = m_clips["story-" + std::to_string(k)].samples;
                story.insert(story.end(), part.begin(), part.end());
            }
        }
    }

    // The known sentence, exactly (normalised), greedy and beam 5, on both models.
    void jfkExactly_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mode");
        for (const char* model : kModels)
            for (const char* mode : kModes) QTest::newRow((std::string(model) + " " + mode).c_str()) << model << mode;
    }
    void jfkExactly() {
        QFETCH(QString, model);
        QFETCH(QString, mode);
        QVERIFY2(m_setupFailure.isEmpty(), qPrintable(m_setupFailure));
        LoadedModel& m = m_models.at(model.toStdString());
        auto transcript = transcribe(*m.session, *m.tokenizer, m_clips.at("jfk").samples, referenceOptions(mode.toStdString()));
        QVERIFY2(transcript, transcript ? "" : transcript.message().c_str());
        QCOMPARE(QString::fromStdString(normaliseForWer(transcript->text)),
                 QStringLiteral("and so my fellow americans ask not what your country can do for you ask what you can do "
                                "for your country"));
        QCOMPARE(QString::fromStdString(transcript->language), QStringLiteral("en"));
    }

    // Every window faster-whisper decoded, replayed with the same mel frames and prompt: the same
    // tokens, or a first difference where faster-whisper's own choice was a near-tie.
    void windowTokens_data() { addRows(false); }
    void windowTokens() {
        QFETCH(QString, model);
        QFETCH(QString, mode);
        QFETCH(QString, clipName);
        QVERIFY2(m_setupFailure.isEmpty(), qPrintable(m_setupFailure));
        LoadedModel& m = m_models.at(model.toStdString());
        QString why;
        const std::string name = clipName.toStdString();
        Clip* c = clip(name, m.golden, &why);
        QVERIFY2(c, qPrintable(why));
        const Json& result = m.golden["clips"][name][mode.toStdString()];
        const SpecialTokens& special = m.tokenizer->special();

        LogMelStream stream(m.model->config().nMels);
        stream.append(c->samples.data(), c->samples.size());
        stream.finish();
        int windows = 0, nearTies = 0;
        for (const Json& w : result["windows"].toArray()) {
            const int seek = int(w["seek"].toInt()), frames = int(w["frames"].toInt());
            const LogMel mel = stream.window(size_t(seek), size_t(frames), MelWindowOptions{MelPadding::Zero, stream.maxLog10()});
            QCOMPARE(mel.frames, kChunkFrames);
            QVERIFY(m.session->encode(mel));

            // The prompt: [<|startofprev|> previous...] <|startoftranscript|> [<|lang|> <|transcribe|>].
            const std::vector<int> prompt = intArray(w["prompt"]);
            TranscribeOptions options = referenceOptions(mode.toStdString());
            DecodingOptions& d = options.decoding;
            const auto sot = std::find(prompt.begin(), prompt.end(), special.sot);
            QVERIFY(sot != prompt.end());
            if (prompt.front() == special.startOfPrev) d.prompt.assign(prompt.begin() + 1, sot);
            if (m.tokenizer->isMultilingual()) {
                QVERIFY(prompt.end() - sot >= 3);
                d.language = std::string(m.tokenizer->languageCode(*(sot + 1)));
                QVERIFY(!d.language.empty());
            }
            auto decoded = decodeWithFallback(*m.session, *m.tokenizer, d, options.temperatures, options.thresholds);
            QVERIFY2(decoded, decoded ? "" : decoded.message().c_str());
            const std::vector<int> expected = intArray(w["tokens"]);
            const std::vector<int>& got = decoded->tokens;
            ++windows;
            QVERIFY2(std::abs(decoded->noSpeechProb - w["no_speech_prob"].toDouble()) < 2e-3,
                     qPrintable(QStringLiteral("window at %1: no-speech probability %2, faster-whisper %3")
                                    .arg(seek).arg(decoded->noSpeechProb).arg(w["no_speech_prob"].toDouble())));
            if (got == expected) continue;
            size_t k = 0;
            while (k < got.size() && k < expected.size() && got[k] == expected[k]) ++k;
            double margin = 1e9;
            if (w.contains("margins") && k < w["margins"].toArray().size()) margin = w["margins"].toArray()[k].toDouble();
            if (w.contains("score_gap") && w["score_gap"].isNumber()) margin = w["score_gap"].toDouble();
            const QString detail = QStringLiteral("%1 %2 %3, window at frame %4: first difference at token %5: ours [%6], "
                                                  "faster-whisper [%7]; faster-whisper's margin there %8")
                                       .arg(model, mode, clipName).arg(seek).arg(k)
                                       .arg(QString::fromStdString(joinTokens(got, k, 4)),
                                            QString::fromStdString(joinTokens(expected, k, 4)))
                                       .arg(margin);
            QVERIFY2(margin < kNearTie, qPrintable(detail));
            qInfo("near-tie allowed: %s", qPrintable(detail));
            ++nearTies;
        }
        QVERIFY(windows > 0);
        qInfo("%s %s %s: %d windows, %d identical, %d near-ties", qPrintable(model), qPrintable(mode), qPrintable(clipName),
              windows, windows - nearTies, nearTies);
    }

    // transcribe() over the whole recording: faster-whisper's segments, text and times (±0.02 s).
    void longForm_data() { addRows(true); }
    void longForm() {
        QFETCH(QString, model);
        QFETCH(QString, mode);
        QFETCH(QString, clipName);
        QVERIFY2(m_setupFailure.isEmpty(), qPrintable(m_setupFailure));
        LoadedModel& m = m_models.at(model.toStdString());
        QString why;
        const std::string name = clipName.toStdString();
        Clip* c = clip(name, m.golden, &why);
        QVERIFY2(c, qPrintable(why));
        const Json& entry = m.golden["clips"][name];
        const Json& result = entry[mode.toStdString()];
        auto transcript = transcribe(*m.session, *m.tokenizer, c->samples, referenceOptions(mode.toStdString()));
        QVERIFY2(transcript, transcript ? "" : transcript.message().c_str());
        std::vector<const Segment*> ours;  // faster-whisper yields only segments with text
        for (const Segment& s : transcript->segments)
            if (!s.text.empty()) ours.push_back(&s);
        const auto& theirs = result["segments"].toArray();
        for (size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i) {
            const Json& t = theirs[i];
            const QString where = QStringLiteral("segment %1 (faster-whisper %2 to %3 s: \"%4\"; ours %5 to %6 s: \"%7\")")
                                      .arg(i).arg(t["start"].toDouble()).arg(t["end"].toDouble())
                                      .arg(QString::fromStdString(t["text"].toString())).arg(ours[i]->start).arg(ours[i]->end)
                                      .arg(QString::fromStdString(ours[i]->text));
            QVERIFY2(ours[i]->text == t["text"].toString(), qPrintable("text differs: " + where));
            QVERIFY2(std::abs(ours[i]->start - t["start"].toDouble()) <= 0.02 + 1e-9, qPrintable("start differs: " + where));
            QVERIFY2(std::abs(ours[i]->end - t["end"].toDouble()) <= 0.02 + 1e-9, qPrintable("end differs: " + where));
        }
        QCOMPARE(ours.size(), theirs.size());
        if (entry.contains("gap")) {  // no text for the silence between the two recordings
            const double from = entry["gap"].toArray()[0].toDouble(), to = entry["gap"].toArray()[1].toDouble();
            for (const Segment* s : ours) {
                QVERIFY2(s->end <= from + 0.5 || s->start >= to - 0.5,
                         qPrintable(QStringLiteral("text in the silent gap: %1 to %2 s \"%3\"").arg(s->start).arg(s->end)
                                        .arg(QString::fromStdString(s->text))));
            }
        }
    }

    // Base's language detection on every clip: faster-whisper's language, its probability ±1e-3.
    void languageDetection_data() {
        QTest::addColumn<QString>("clipName");
        auto it = m_models.find("base");
        if (it == m_models.end()) {
            QTest::newRow("base") << QString();
            return;
        }
        for (const auto& [name, entry] : it->second.golden["clips"].toObject()) {
            if (entry["greedy"].contains("language_detection")) QTest::newRow(name.c_str()) << QString::fromStdString(name);
        }
    }
    void languageDetection() {
        QFETCH(QString, clipName);
        QVERIFY2(m_setupFailure.isEmpty(), qPrintable(m_setupFailure));
        LoadedModel& m = m_models.at("base");
        QString why;
        const std::string name = clipName.toStdString();
        Clip* c = clip(name, m.golden, &why);
        QVERIFY2(c, qPrintable(why));
        const Json& detection = m.golden["clips"][name]["greedy"]["language_detection"];
        const auto& window = detection["window"].toArray();
        LogMelStream stream(m.model->config().nMels);
        stream.append(c->samples.data(), c->samples.size());
        stream.finish();
        QVERIFY(m.session->encode(stream.window(size_t(window[0].toInt()), size_t(window[1].toInt()),
                                                MelWindowOptions{MelPadding::Zero, stream.maxLog10()})));
        auto detected = detectLanguage(*m.session, *m.tokenizer);
        QVERIFY2(detected, detected ? "" : detected.message().c_str());
        std::map<std::string, double> probability;
        for (const auto& p : detected->probabilities) probability[p.code] = p.probability;
        const auto& top = detection["top"].toArray();
        QCOMPARE(QString::fromStdString(detected->code), QString::fromStdString(top[0].toArray()[0].toString()));
        for (const Json& pair : top) {
            const std::string code = pair.toArray()[0].toString();
            const double expected = pair.toArray()[1].toDouble();
            QVERIFY2(std::abs(probability[code] - expected) < 1e-3,
                     qPrintable(QStringLiteral("%1: P(%2) = %3, faster-whisper %4").arg(clipName)
                                    .arg(QString::fromStdString(code)).arg(probability[code]).arg(expected)));
        }
        // transcribe()'s own detection agrees.
        auto transcript = transcribe(*m.session, *m.tokenizer, c->samples, referenceOptions("greedy"));
        QVERIFY2(transcript, transcript ? "" : transcript.message().c_str());
        QCOMPARE(QString::fromStdString(transcript->language), QString::fromStdString(m.golden["clips"][name]["greedy"]["language"].toString()));
    }

    // Word error rates on the known sentences: Hearsay's equal faster-whisper's (the tokens are equal).
    void wordErrorRates_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mode");
        for (const char* model : kModels)
            for (const char* mode : kModes) QTest::newRow((std::string(model) + " " + mode).c_str()) << model << mode;
    }
    void wordErrorRates() {
        QFETCH(QString, model);
        QFETCH(QString, mode);
        QVERIFY2(m_setupFailure.isEmpty(), qPrintable(m_setupFailure));
        LoadedModel& m = m_models.at(model.toStdString());
        std::map<std::string, WordErrors> ours, theirs;  // per language
        for (const auto& [name, entry] : m.golden["clips"].toObject()) {
            if (!entry.contains("reference")) continue;
            QString why;
            Clip* c = clip(name, m.golden, &why);
            QVERIFY2(c, qPrintable(why));
            const Json& result = entry[mode.toStdString()];
            auto transcript = transcribe(*m.session, *m.tokenizer, c->samples, referenceOptions(mode.toStdString()));
            QVERIFY2(transcript, transcript ? "" : transcript.message().c_str());
            const std::string language = name == "story" ? "en (story)" : name.substr(0, 2);
            const WordErrors w = wordErrors(entry["reference"].toString(), transcript->text);
            ours[language].errors += w.errors;
            ours[language].referenceWords += w.referenceWords;
            theirs[language].errors += int(result["word_errors"].toInt());
            theirs[language].referenceWords += int(result["reference_words"].toInt());
            QVERIFY2(w.errors == result["word_errors"].toInt(),
                     qPrintable(QStringLiteral("%1: %2 word errors, faster-whisper %3 (\"%4\" / \"%5\")").arg(QString::fromStdString(name))
                                    .arg(w.errors).arg(result["word_errors"].toInt())
                                    .arg(QString::fromStdString(transcript->text), QString::fromStdString(result["text"].toString()))));
        }
        for (const auto& [language, w] : ours) {
            qInfo("WER %s %s %s: Hearsay %.2f%% (%d/%d), faster-whisper %.2f%% (%d/%d)", qPrintable(model), qPrintable(mode),
                  language.c_str(), 100.0 * w.rate(), w.errors, w.referenceWords, 100.0 * theirs[language].rate(),
                  theirs[language].errors, theirs[language].referenceWords);
        }
    }
};

QTEST_APPLESS_MAIN(TestRealModels)
#include "tst_real_models.moc"
