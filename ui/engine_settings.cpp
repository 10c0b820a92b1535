// QSettings keys of the engine settings (see engine_settings.h).
#include "ui/engine_settings.h"

#include "core/decoding/language_detection.h"
#include "core/streaming/streaming_options.h"
#include "core/text/tokenizer.h"

#include <QSettings>

namespace hearsay::ui {
namespace {

// QVariant::toBool() reads any unknown text as false; only "true"/"false" are taken, else `fallback`.
bool readBool(const QSettings& settings, const QString& key, bool fallback) {
    const QString text = settings.value(key, fallback).toString().toLower();
    return text == "true" || text == "false" ? text == "true" : fallback;
}

} // namespace

EngineSettings EngineSettings::load(const QSettings& settings) {
    EngineSettings s;
    const QString backend = settings.value("engine/backend", s.backend).toString().toLower();
    if (backend == "auto" || backend == "cpu" || backend == "cuda") s.backend = backend;
    const int threads = settings.value("engine/threads", s.threads).toInt();
    if (threads >= 0 && threads <= 1024) s.threads = threads;
    const QString language = settings.value("decoding/language", s.language).toString();
    if (language.isEmpty() || languageIndex(language.toStdString())) s.language = language;
    s.translate = settings.value("decoding/task", "transcribe").toString() == "translate";
    const int beam = settings.value("decoding/beamSize", s.beamSize).toInt();
    if (beam >= 1 && beam <= kMaxBeamSize) s.beamSize = beam;
    s.temperatureFallback = readBool(settings, "decoding/temperatureFallback", s.temperatureFallback);
    s.selfCache = settings.value("cache/selfAttention", s.selfCache).toBool();
    s.crossCache = settings.value("cache/crossAttention", s.crossCache).toBool();
    s.initialPrompt = settings.value("decoding/initialPrompt", s.initialPrompt).toString();
    const QString precision = settings.value("engine/precision", s.precision).toString().toLower();
    if (precision == "fp16" || precision == "fp32") s.precision = precision;
    s.stepGraphs = readBool(settings, "engine/stepGraphs", s.stepGraphs);
    s.inputDevice = settings.value("dictation/inputDevice", s.inputDevice).toString();
    const double step = settings.value("dictation/stepSeconds", s.stepSeconds).toDouble();
    if (step >= TranscriptionRequest::kMinStepSeconds && step <= TranscriptionRequest::kMaxStepSeconds) s.stepSeconds = step;
    const QString commit = settings.value("dictation/commit", s.commit).toString();
    if (parseCommitPolicy(commit.toStdString())) s.commit = commit;
    // A hand-written "en, de" without quotes reads back as a list.
    const QVariant among = settings.value("decoding/detectAmong", s.detectAmong);
    s.detectAmong = among.typeId() == QMetaType::QStringList ? among.toStringList().join(", ") : among.toString();
    s.vocabulary = settings.value("dictation/vocabulary", s.vocabulary).toString();
    s.replacements = settings.value("dictation/replacements", s.replacements).toString();
    s.spokenCommands = readBool(settings, "dictation/spokenCommands", s.spokenCommands);
    const double vad = settings.value("dictation/vadThreshold", s.vadThreshold).toDouble();
    if (vad > 0.0 && vad < 1.0) s.vadThreshold = vad;
    s.showTentative = readBool(settings, "dictation/showTentative", s.showTentative);
    return s;
}

TranscriptionRequest EngineSettings::request() const {
    TranscriptionRequest r;
    r.task = translate ? DecodingTaskKind::Translate : DecodingTaskKind::Transcribe;
    r.language = language.toStdString();
    // A list naming an unknown language is not applied (the settings panel refuses those).
    if (language.isEmpty() && !detectAmong.trimmed().isEmpty()) {
        if (auto codes = parseLanguageList(detectAmong.toStdString())) r.detectAmong = std::move(codes).value();
    }
    r.beamSize = beamSize;
    r.bestOf = kBestOf;
    r.temperatureIncrement = temperatureFallback ? kTemperatureIncrement : 0.0;
    r.stepSeconds = stepSeconds;
    return r;
}

void EngineSettings::save(QSettings& settings) const {
    settings.setValue("engine/backend", backend);
    settings.setValue("engine/threads", threads);
    settings.setValue("decoding/language", language);
    settings.setValue("decoding/task", translate ? "translate" : "transcribe");
    settings.setValue("decoding/beamSize", beamSize);
    settings.setValue("decoding/temperatureFallback", temperatureFallback);
    settings.setValue("cache/selfAttention", selfCache);
    settings.setValue("cache/crossAttention", crossCache);
    settings.setValue("decoding/initialPrompt", initialPrompt);
    settings.setValue("engine/precision", precision);
    settings.setValue("engine/stepGraphs", stepGraphs);
    settings.setValue("dictation/inputDevice", inputDevice);
    settings.setValue("dictation/stepSeconds", stepSeconds);
    settings.setValue("dictation/vadThreshold", vadThreshold);
    settings.setValue("dictation/commit", commit);
    settings.setValue("decoding/detectAmong", detectAmong);
    settings.setValue("dictation/vocabulary", vocabulary);
    settings.setValue("dictation/replacements", replacements);
    settings.setValue("dictation/spokenCommands", spokenCommands);
    settings.setValue("dictation/showTentative", showTentative);
}

} // namespace hearsay::ui
