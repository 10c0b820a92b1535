// The engine on the worker thread (see transcription_worker.h): every engine call is made here,
// every failure becomes a message, and exceptions stop at this boundary.
#include "ui/transcription_worker.h"

#include "core/audio/audio_file.h"
#include "core/backend/backend.h"
#include "core/decoding/transcriber.h"
#include "core/model/model_tokenizer.h"
#include "core/model/whisper_model.h"
#include "core/text/tokenizer.h"
#include "ui/controlled_session.h"

#include <filesystem>
#include <new>

namespace hearsay::ui {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kMetricsInterval{200};  // live updates while a window decodes

QString text(const std::string& s) { return QString::fromStdString(s); }
fs::path toPath(const QString& path) { return fs::path(path.toStdString()); }

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

Result<std::shared_ptr<ControlledSession>> createSession(std::shared_ptr<const WhisperModel> model,
                                                         std::shared_ptr<Backend> backend,
                                                         std::shared_ptr<SessionControls> controls,
                                                         const EngineSettings& settings) {
    SessionOptions options;
    options.maxBeams = settings.sessionBeams();
    options.selfAttentionCache = settings.selfCache;
    options.crossAttentionCache = settings.crossCache;
    options.threads = settings.threads;
    auto session = InferenceSession::create(std::move(model), std::move(backend), options);
    if (!session) return session.error();
    controls->selfCache = settings.selfCache;
    controls->crossCache = settings.crossCache;
    return std::make_shared<ControlledSession>(std::move(session.value()), std::move(controls), options.maxBeams);
}

TranscribeOptions transcribeOptions(const EngineSettings& settings, bool multilingual) {
    TranscribeOptions options;
    DecodingOptions& d = options.decoding;
    d.task = settings.translate ? DecodingTaskKind::Translate : DecodingTaskKind::Transcribe;
    d.language = multilingual ? settings.language.toStdString() : std::string();
    d.beamSize = settings.beamSize > 1 ? settings.beamSize : 0;
    d.bestOf = EngineSettings::kBestOf;
    options.initialPrompt = settings.initialPrompt.toStdString();
    return options;
}

} // namespace

TranscriptionWorker::TranscriptionWorker(QObject* parent)
    : QObject(parent), m_controls(std::make_shared<SessionControls>()) {
    qRegisterMetaType<ModelSummary>();
    qRegisterMetaType<AudioSummary>();
    qRegisterMetaType<EngineMetrics>();
    qRegisterMetaType<SegmentList>();
    qRegisterMetaType<Transcript>();
    qRegisterMetaType<EngineSettings>();
}

TranscriptionWorker::~TranscriptionWorker() = default;

void TranscriptionWorker::requestCancel() { m_controls->cancel = true; }

void TranscriptionWorker::clearCancel() { m_controls->cancel = false; }

void TranscriptionWorker::requestCacheSwitches(bool selfCache, bool crossCache) {
    m_controls->selfCache = selfCache;
    m_controls->crossCache = crossCache;
}

void TranscriptionWorker::loadModel(const QString& path, const EngineSettings& settings) {
    emit modelLoading(path);
    try {
        auto model = WhisperModel::load(toPath(path));
        if (!model) {
            emit modelFailed(text(model.message()));
            return;
        }
        const WhisperConfig& config = model.value()->config();
        auto tokenizer = tokenizerForModel(*model.value());
        if (!tokenizer) {
            emit modelFailed(text(tokenizer.message()));  // names the model and what is missing
            return;
        }
        // The previous model stays usable until the new one has a session.
        auto previousModel = std::move(m_model);
        auto previousSession = std::move(m_session);
        m_model = model.value();
        if (auto error = prepareSession(settings)) {
            m_model = std::move(previousModel);
            m_session = std::move(previousSession);
            emit modelFailed(tr("Cannot prepare a session for %1: %2").arg(path, *error));
            return;
        }
        m_tokenizer = std::make_unique<Tokenizer>(std::move(tokenizer.value()));

        ModelSummary summary;
        summary.path = path;
        summary.format = m_model->format() == ModelFormat::HuggingFace ? tr("Hugging Face checkpoint")
                                                                       : tr("whisper.cpp ggml");
        summary.config = config;
        summary.multilingual = m_tokenizer->isMultilingual();
        summary.languageCount = summary.multilingual ? m_tokenizer->special().languageCount : 0;
        summary.weightMiB = double(m_model->weightBytes()) / (1024.0 * 1024.0);
        emit modelLoaded(summary);
        emit metricsUpdated(metrics());
    } catch (const std::bad_alloc&) {
        emit modelFailed(tr("Out of memory while loading %1").arg(path));
    } catch (const std::exception& e) {
        emit modelFailed(tr("Cannot load %1: %2").arg(path, text(e.what())));
    }
}

std::optional<QString> TranscriptionWorker::prepareSession(const EngineSettings& settings) {
    if (!m_model) return tr("no model is loaded");
    bool rebuild = !m_session || m_session->maxBeams() != settings.sessionBeams() ||
                   &m_session->model() != m_model.get();
    if (!m_backend || m_backendChoice != settings.backend) {
        auto kind = parseBackendKind(settings.backend.toStdString());
        if (!kind) return text(kind.message());
        auto backend = createBackend(kind.value(), BackendOptions{settings.threads, 0});
        if (!backend) return text(backend.message());
        m_session.reset();  // sessions hold buffers of the backend they were made with
        m_backend = backend.value();
        m_backendChoice = settings.backend;
        rebuild = true;
    }
    if (m_backend->threads() != settings.threads) m_backend->setThreads(settings.threads);
    if (rebuild) {
        m_session.reset();  // free the old caches before allocating new ones
        auto session = createSession(m_model, m_backend, m_controls, settings);
        if (!session) return text(session.message());
        m_session = session.value();
        m_session->setObserver([this] { emit metricsUpdated(metrics()); }, kMetricsInterval);
    }
    requestCacheSwitches(settings.selfCache, settings.crossCache);
    m_session->applyRequestedSwitches();
    return std::nullopt;
}

void TranscriptionWorker::applySettings(const EngineSettings& settings) {
    if (!m_model) return;
    try {
        if (auto error = prepareSession(settings)) emit warning(tr("Cannot apply the settings: %1").arg(*error));
    } catch (const std::bad_alloc&) {
        emit warning(tr("Out of memory while applying the settings"));
    } catch (const std::exception& e) {
        emit warning(tr("Cannot apply the settings: %1").arg(text(e.what())));
    }
    emit metricsUpdated(metrics());
}

void TranscriptionWorker::transcribeFile(const QString& path, const EngineSettings& settings) {
    auto fail = [this](const QString& message) {
        m_running = false;
        const bool cancelled = m_controls->cancel.load();
        emit transcriptionFailed(cancelled ? tr("Transcription cancelled") : message, cancelled);
        emit metricsUpdated(metrics());
    };
    if (!m_model || !m_tokenizer) {
        fail(tr("Open a model before transcribing (File > Open model)"));
        return;
    }
    try {
        if (auto error = prepareSession(settings)) {
            fail(*error);
            return;
        }
        auto audio = decodeAudioFile(toPath(path));
        if (!audio) {
            fail(text(audio.message()));
            return;
        }
        AudioSummary summary;
        summary.path = path;
        summary.durationSeconds = audio->durationSeconds();
        summary.decoder = text(audio->decoder);
        summary.format = text(audio->format);
        summary.sourceRate = audio->sourceRate;
        summary.sourceChannels = audio->sourceChannels;
        emit transcriptionStarted(summary);

        m_session->resetCounters();
        m_running = true;
        m_runStart = Clock::now();
        m_runAudioSeconds = 0.0;
        emit metricsUpdated(metrics());

        const double duration = summary.durationSeconds;
        TranscribeProgress progress = [&](double fraction, const std::vector<Segment>& produced) {
            m_runAudioSeconds = fraction * duration;
            if (!produced.empty()) emit segmentsReady(produced);
            emit progressChanged(fraction);
            emit metricsUpdated(metrics());
        };
        auto transcript = transcribe(*m_session, *m_tokenizer, audio->samples,
                                     transcribeOptions(settings, m_tokenizer->isMultilingual()), progress);
        m_runWallSeconds = secondsSince(m_runStart);
        if (!transcript) {
            fail(tr("Transcription of %1 failed: %2").arg(path, text(transcript.message())));
            return;
        }
        m_running = false;
        m_runAudioSeconds = duration;
        m_runWallSeconds = transcript->statistics.wallSeconds;
        transcript->source = path.toStdString();
        emit metricsUpdated(metrics());
        emit transcriptionFinished(transcript.value());
    } catch (const std::bad_alloc&) {
        fail(tr("Out of memory while transcribing %1").arg(path));
    } catch (const std::exception& e) {
        fail(tr("Transcription of %1 failed: %2").arg(path, text(e.what())));
    }
}

EngineMetrics TranscriptionWorker::metrics() const {
    EngineMetrics m;
    if (m_backend) m.backend = text(m_backend->name());
    if (m_session) {
        m.cache = m_session->cacheStats();
        m.selfCache = m_session->selfAttentionCache();
        m.crossCache = m_session->crossAttentionCache();
        m.maxBeams = m_session->maxBeams();
        const SessionCounters& c = m_session->counters();
        m.lastEncoderMs = c.lastEncoderMs;
        m.encoderMs = c.encoderMs;
        m.windows = c.windows;
        m.decodeMs = c.decodeMs;
        m.decodeCalls = c.decodeCalls;
        m.tokensDecoded = c.tokensDecoded;
    }
    m.running = m_running;
    m.audioSeconds = m_runAudioSeconds;
    m.wallSeconds = m_running ? secondsSince(m_runStart) : m_runWallSeconds;
    return m;
}

} // namespace hearsay::ui
