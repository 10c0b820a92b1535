// QSettings keys of the engine settings (see engine_settings.h).
#include "ui/engine_settings.h"

#include "core/text/tokenizer.h"

#include <QSettings>

namespace hearsay::ui {

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
    s.selfCache = settings.value("cache/selfAttention", s.selfCache).toBool();
    s.crossCache = settings.value("cache/crossAttention", s.crossCache).toBool();
    s.initialPrompt = settings.value("decoding/initialPrompt", s.initialPrompt).toString();
    const QString precision = settings.value("engine/precision", s.precision).toString().toLower();
    if (precision == "fp16" || precision == "fp32") s.precision = precision;
    // QVariant::toBool() reads any unknown text as false; only "true"/"false" are taken.
    const QString graphs = settings.value("engine/stepGraphs", s.stepGraphs).toString().toLower();
    if (graphs == "true" || graphs == "false") s.stepGraphs = graphs == "true";
    return s;
}

void EngineSettings::save(QSettings& settings) const {
    settings.setValue("engine/backend", backend);
    settings.setValue("engine/threads", threads);
    settings.setValue("decoding/language", language);
    settings.setValue("decoding/task", translate ? "translate" : "transcribe");
    settings.setValue("decoding/beamSize", beamSize);
    settings.setValue("cache/selfAttention", selfCache);
    settings.setValue("cache/crossAttention", crossCache);
    settings.setValue("decoding/initialPrompt", initialPrompt);
    settings.setValue("engine/precision", precision);
    settings.setValue("engine/stepGraphs", stepGraphs);
}

} // namespace hearsay::ui
