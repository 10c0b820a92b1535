// The engine on the worker thread (see transcription_worker.h): every engine call is made here,
// every failure becomes a message, and exceptions stop at this boundary.
#include "ui/transcription_worker.h"

#include "core/audio/audio_file.h"
#include "core/audio/capture_device.h"
#include "core/audio/recording_source.h"
#include "core/audio/simulated_live_source.h"
#include "core/backend/backend.h"
#include "core/backend/backend_error.h"
#include "core/decoding/transcriber.h"
#include "core/frontend/log_mel.h"
#include "core/model/whisper_model.h"
#include "core/decoding/language_detection.h"
#include "core/streaming/streaming_session.h"
#include "core/transcript/replacement_rules.h"
#include "core/text/tokenizer.h"
#include "core/transcript/dictation_journal.h"

#include <algorithm>
#include <filesystem>
#include <condition_variable>
#include <new>
#include <span>
#include <thread>

namespace hearsay::ui {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kMetricsInterval{200};  // live updates while a window decodes
constexpr double kDictationAudioSeconds = 30.0 * 60.0;     // a run's audio kept for playback (115 MB)

QString text(const std::string& s) { return QString::fromStdString(s); }
fs::path toPath(const QString& path) { return fs::path(path.toStdString()); }

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// `error` as the worker reports it: its text, its kind and the backend it happened on.
EngineFailure failureOf(const Error& error, BackendKind backend) { return {text(error.message), error.kind, backend}; }

// Ends the worker's current job (EngineControls::endJob) however the slot returns.
struct JobScope {
    EngineControls& controls;
    JobScope(EngineControls& c, quint64 ticket) : controls(c) { controls.beginJob(ticket); }
    ~JobScope() { controls.endJob(); }
    JobScope(const JobScope&) = delete;
    JobScope& operator=(const JobScope&) = delete;
};

SessionOptions sessionOptions(const EngineSettings& settings) {
    SessionOptions options;
    options.maxBeams = settings.sessionBeams();
    options.selfAttentionCache = settings.selfCache;
    options.crossAttentionCache = settings.crossCache;
    options.stepGraphs = settings.stepGraphs;
    return options;
}

// The file transcription the settings ask for on `model`: the request validated and mapped in core
// (language, task, beams), the prompt and word timestamps.
Result<TranscribeOptions> transcribeOptions(const EngineSettings& settings, const WhisperConfig& model) {
    auto request = settings.request().validate(model);
    if (!request) return request.error();
    TranscribeOptions options;
    options.decoding = request->decoding;
    options.temperatures = request->temperatures;
    options.initialPrompt = settings.initialPrompt.toStdString();
    options.wordTimestamps = settings.wordTimestamps;
    return options;
}

} // namespace

TranscriptionWorker::TranscriptionWorker(QObject* parent)
    : QObject(parent), m_controls(std::make_shared<EngineControls>()) {
    qRegisterMetaType<ModelSummary>();
    qRegisterMetaType<AudioSummary>();
    qRegisterMetaType<EngineMetrics>();
    qRegisterMetaType<EngineFailure>();
    qRegisterMetaType<SegmentList>();
    qRegisterMetaType<Transcript>();
    qRegisterMetaType<EngineSettings>();
    qRegisterMetaType<InputDeviceList>();
    qRegisterMetaType<DictationRequest>();
    qRegisterMetaType<DictationInfo>();
    qRegisterMetaType<DictationAudio>();
    qRegisterMetaType<TentativeText>();
    qRegisterMetaType<CommittedText>();
    qRegisterMetaType<StreamingStep>();
    qRegisterMetaType<StreamingSummary>();
    qRegisterMetaType<InputLevel>();
    qRegisterMetaType<DeviceMemory>();
}

TranscriptionWorker::~TranscriptionWorker() = default;

void TranscriptionWorker::readDeviceMemory() {
    emit deviceMemoryRead(m_host.loaded() ? m_host.engine().backend().memoryInfo() : DeviceMemory{});
}

void TranscriptionWorker::loadModel(const QString& path, const EngineSettings& settings) {
    emit modelLoading(path);
    try {
        // The host reads the file and uploads it as one transaction: when it fails, the previous
        // model (if any) is still loaded and gets its session back.
        if (auto failure = prepareEngine(settings, toPath(path))) {
            if (m_host.loaded()) makeSession(settings);  // the previous model's session back
            emit modelFailed(*failure);
            return;
        }
        if (auto failure = prepareSession(settings)) {
            failure->message = tr("Cannot prepare a session for %1: %2").arg(path, failure->message);
            emit modelFailed(*failure);
            return;
        }

        const WhisperModel& model = m_host.engine().model();
        const Tokenizer& tokenizer = m_host.engine().tokenizer();
        ModelSummary summary;
        summary.path = path;
        summary.format = tr(modelFormatName(model.format()));
        summary.config = model.config();
        summary.multilingual = tokenizer.isMultilingual();
        summary.languageCount = summary.multilingual ? tokenizer.special().languageCount : 0;
        summary.weightMiB = double(model.weightBytes()) / (1024.0 * 1024.0);
        emit modelLoaded(summary);
        emit metricsUpdated(metrics());
    } catch (const std::bad_alloc& e) {
        emit modelFailed({tr("Out of memory while loading %1: %2").arg(path, text(e.what())), ErrorKind::OutOfMemory,
                          backendInUse()});
    } catch (const std::exception& e) {
        emit modelFailed({tr("Cannot load %1: %2").arg(path, text(e.what())), ErrorKind::BadInput, backendInUse()});
    }
}

BackendKind TranscriptionWorker::backendInUse() const {
    return m_host.loaded() ? m_host.engine().backend().kind() : BackendKind::Cpu;
}

std::optional<TranscriptionWorker::Failure> TranscriptionWorker::prepareEngine(const EngineSettings& settings,
                                                                              const std::optional<fs::path>& model) {
    if (!model && !m_host.loaded()) return Failure{tr("no model is loaded")};
    auto kind = parseBackendKind(settings.backend.toStdString());
    if (!kind) return Failure{text(kind.message())};
    auto precision = parsePrecision(settings.precision.toStdString());
    if (!precision) return Failure{text(precision.message())};
    EngineConfig config;
    config.modelPath = model ? *model : m_host.config().modelPath;
    config.reloadModel = model.has_value();  // a model opened again is read again
    config.backend = kind.value();
    config.precision = precision.value();
    config.threads = settings.threads;
    // The session holds the weights and its caches: it goes first when the weights are replaced,
    // so that the old ones are released before the new ones are uploaded.
    if (m_host.needsUpload(config)) m_session.reset();
    if (auto applied = m_host.apply(config); !applied)
        return failureOf(applied.error(), m_host.attemptedBackend());
    // The switches as the settings have them; a session made now starts with them.
    m_controls->requestSwitches(settings.selfCache, settings.crossCache, settings.stepGraphs);
    return std::nullopt;
}

std::optional<TranscriptionWorker::Failure> TranscriptionWorker::prepareSession(const EngineSettings& settings) {
    if (auto failure = prepareEngine(settings)) return failure;
    return makeSession(settings);
}

std::optional<TranscriptionWorker::Failure> TranscriptionWorker::makeSession(const EngineSettings& settings) {
    if (!m_host.loaded()) return Failure{tr("no model is loaded")};
    if (!m_session || m_session->maxBeams() != settings.sessionBeams()) {
        // Beams change the caches only: a new session over the same weights, nothing uploaded.
        m_session.reset();  // free the old caches before allocating new ones
        auto session = m_host.createSession(sessionOptions(settings), m_controls->session());
        if (!session) return failureOf(session.error(), m_host.engine().backend().kind());
        m_session = std::move(session).value();
        m_session->setObserver([this] { emit metricsUpdated(metrics()); }, kMetricsInterval);
    }
    m_session->applyRequestedSwitches();
    return std::nullopt;
}

void TranscriptionWorker::applySettings(const EngineSettings& settings) {
    if (!m_host.loaded()) return;
    try {
        if (auto failure = prepareSession(settings)) {
            failure->message = tr("Cannot apply the settings: %1").arg(failure->message);
            emit warning(*failure);
        }
    } catch (const std::bad_alloc& e) {
        emit warning({tr("Out of memory while applying the settings: %1").arg(text(e.what())), ErrorKind::OutOfMemory,
                      backendInUse()});
    } catch (const std::exception& e) {
        emit warning({tr("Cannot apply the settings: %1").arg(text(e.what())), backendErrorKind(e), backendInUse()});
    }
    emit metricsUpdated(metrics());
}

void TranscriptionWorker::transcribeFile(const QString& path, const EngineSettings& settings, double startSeconds,
                                         quint64 ticket) {
    JobScope job(*m_controls, ticket);
    auto fail = [this](EngineFailure failure) {
        m_running = false;
        if (m_controls->cancelled()) failure = {tr("Transcription cancelled"), ErrorKind::Cancelled, failure.backend};
        emit transcriptionFailed(failure);
        emit metricsUpdated(metrics());
    };
    if (!m_host.loaded()) {
        fail({tr("Open a model before transcribing (File > Open model)")});
        return;
    }
    try {
        if (auto failure = prepareSession(settings)) {
            fail(*failure);
            return;
        }
        auto options = transcribeOptions(settings, m_host.engine().model().config());
        if (!options) {
            fail(failureOf(options.error(), backendInUse()));
            return;
        }
        auto audio = decodeAudioFile(toPath(path));
        if (!audio) {
            fail(failureOf(audio.error(), backendInUse()));
            return;
        }
        // A continued job transcribes the audio after `startSeconds` as a file of its own, then
        // places its segments on the whole file's time line.
        // The samples are shared with the window, which plays them (word timings).
        auto samples = std::make_shared<const std::vector<float>>(std::move(audio->samples));
        const size_t total = samples->size();
        const size_t first = std::min(total, static_cast<size_t>(std::max(0.0, startSeconds) * kSampleRate));
        const double offset = double(first) / kSampleRate;
        auto place = [offset](std::vector<Segment> segments) {
            for (Segment& s : segments) {
                s.start += offset;
                s.end += offset;
                s.seek += static_cast<int>(offset * kSampleRate / kHopLength + 0.5);
                for (Word& w : s.words) {
                    w.start += offset;
                    w.end += offset;
                }
            }
            return segments;
        };

        AudioSummary summary;
        summary.path = path;
        summary.durationSeconds = double(total) / kSampleRate;
        summary.startSeconds = offset;
        summary.decoder = text(audio->decoder);
        summary.format = text(audio->format);
        summary.sourceRate = audio->sourceRate;
        summary.sourceChannels = audio->sourceChannels;
        summary.samples = samples;
        emit transcriptionStarted(summary);

        m_session->resetCounters();
        m_running = true;
        m_runStart = Clock::now();
        m_runAudioSeconds = 0.0;
        emit metricsUpdated(metrics());

        const double duration = summary.durationSeconds, rest = duration - offset;
        TranscribeProgress progress = [&](double fraction, const std::vector<Segment>& produced) {
            m_runAudioSeconds = fraction * rest;
            if (!produced.empty()) emit segmentsReady(offset > 0.0 ? place(produced) : produced);
            emit progressChanged(duration > 0.0 ? (offset + fraction * rest) / duration : 1.0);
            emit metricsUpdated(metrics());
        };
        const Tokenizer& tokenizer = m_host.engine().tokenizer();
        auto transcript = transcribe(*m_session, tokenizer, std::span<const float>(*samples).subspan(first),
                                     options.value(), progress);
        m_runWallSeconds = secondsSince(m_runStart);
        if (!transcript) {
            fail({tr("Transcription of %1 failed: %2").arg(path, text(transcript.message())), transcript.kind(),
                  m_host.engine().backend().kind()});
            return;
        }
        m_running = false;
        m_runAudioSeconds = rest;
        m_runWallSeconds = transcript->statistics.wallSeconds;
        transcript->source = path.toStdString();
        if (offset > 0.0) transcript->segments = place(std::move(transcript->segments));
        emit metricsUpdated(metrics());
        emit transcriptionFinished(transcript.value());
    } catch (const std::bad_alloc& e) {
        fail({tr("Out of memory while transcribing %1: %2").arg(path, text(e.what())), ErrorKind::OutOfMemory, backendInUse()});
    } catch (const std::exception& e) {
        fail({tr("Transcription of %1 failed: %2").arg(path, text(e.what())), backendErrorKind(e), backendInUse()});
    }
}

EngineMetrics TranscriptionWorker::metrics() const {
    EngineMetrics m;
    if (m_host.loaded()) {
        const Backend& backend = m_host.engine().backend();
        m.backend = text(backend.name());
        m.backendKind = backend.kind();
        m.precision = text(std::string(precisionName(backend.precision())));
        m.weightBytes = m_host.engine().weights().bytes();
        m.weightUploads = backend.weightUploads().buffers;
    }
    if (m_session) {
        m.cache = m_session->cacheStats();
        m.selfCache = m_session->selfAttentionCache();
        m.crossCache = m_session->crossAttentionCache();
        m.maxBeams = m_session->maxBeams();
        m.stepGraphs = m_session->stepGraphs();
        const SessionCounters& c = m_session->counters();
        m.lastEncoderMs = c.lastEncoderMs;
        m.encoderMs = c.encoderMs;
        m.windows = c.windows;
        m.decodeMs = c.decodeMs;
        m.decodeCalls = c.decodeCalls;
        m.tokensDecoded = c.tokensDecoded;
        m.stepRecordings = c.stepRecordings;
        m.stepReplays = c.stepReplays;
    } else if (m_host.loaded()) {
        m.cache.device = m_host.engine().backend().memoryInfo();
    }
    m.running = m_running;
    m.audioSeconds = m_runAudioSeconds;
    m.wallSeconds = m_running ? secondsSince(m_runStart) : m_runWallSeconds;
    return m;
}

} // namespace hearsay::ui

namespace hearsay::ui {
namespace {

// Watches a dictation run from a thread of its own while the worker's thread is inside
// StreamingSession::run(): every 50 ms it reports the input level and the device memory, and
// passes the window's Stop on to the session.
class DictationMonitor {
public:
    template <class Report>
    DictationMonitor(std::shared_ptr<DictationControl> control, StreamingSession& session, Report report)
        : m_thread([this, control = std::move(control), &session, report] {
              std::unique_lock lock(m_mutex);
              bool stopped = false;
              while (!m_quit) {
                  if (!stopped && control && control->stop.load()) {
                      session.requestStop();
                      stopped = true;
                  }
                  lock.unlock();
                  report();
                  lock.lock();
                  m_wake.wait_for(lock, std::chrono::milliseconds(50), [this] { return m_quit; });
              }
          }) {}
    ~DictationMonitor() {
        {
            std::lock_guard lock(m_mutex);
            m_quit = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_quit = false;
    std::thread m_thread;  // last: starts after the members it uses
};

} // namespace

void TranscriptionWorker::listInputDevices() {
    try {
        auto devices = hearsay::listInputDevices();
        if (!devices) emit inputDevicesListed({}, text(devices.message()));
        else emit inputDevicesListed(devices.value(), {});
    } catch (const std::exception& e) {
        emit inputDevicesListed({}, tr("Cannot list the input devices: %1").arg(text(e.what())));
    }
}

void TranscriptionWorker::startDictation(const DictationRequest& request, const EngineSettings& settings,
                                         const QString& journalPath) {
    if (!m_host.loaded()) {
        emit dictationFailed(tr("Open a model before dictating (File › Open model)."));
        return;
    }
    JobScope job(*m_controls, request.ticket);
    try {
        if (auto failure = prepareEngine(settings)) {
            emit dictationFailed(failure->message);
            return;
        }
        std::unique_ptr<AudioSource> source;
        QString sourceName;
        if (!request.file.isEmpty()) {
            SimulatedLiveOptions options;
            options.speed = request.speed;
            auto opened = SimulatedLiveSource::open(toPath(request.file), options);
            if (!opened) {
                emit dictationFailed(tr("Cannot play %1 as live audio: %2").arg(request.file, text(opened.message())));
                return;
            }
            source = std::move(opened).value();
            sourceName = tr("%1 played live at %2×").arg(fs::path(request.file.toStdString()).filename().c_str()).arg(request.speed);
        } else {
            CaptureOptions options;
            options.device = request.device.toStdString();
            auto opened = CaptureDevice::open(options);
            if (!opened) {
                const QString name = request.device.isEmpty() ? tr("the default input device") : request.device;
                emit dictationFailed(tr("Cannot open %1: %2").arg(name, text(opened.message())));
                return;
            }
            source = std::move(opened).value();
            sourceName = text(source->description());
        }

        StreamingOptions options;
        // Language, task and step: the settings' request, validated for the model (dictation
        // decodes greedily whatever the beam size of files: a step must be quick).
        TranscriptionRequest wanted = settings.request();
        wanted.beamSize = 1;
        wanted.bestOf = 0;
        wanted.temperatureIncrement = 0.0;  // nor retries a window
        wanted.stepSeconds = request.stepSeconds;
        auto validated = wanted.validate(m_host.engine().model().config());
        if (!validated) {
            emit dictationFailed(tr("Cannot start dictation: %1").arg(text(validated.message())));
            return;
        }
        options.stepSeconds = validated->stepSeconds;
        options.vad.threshold = request.vadThreshold;
        options.commit = parseCommitPolicy(request.commit.toStdString()).value_or(options.commit);
        options.vocabulary = vocabularyPrompt(request.vocabulary.toStdString());
        DictatedTextRewrite rewrite;
        if (request.spokenCommands) rewrite.spokenCommandsLanguage = settings.language.isEmpty() ? "en" : settings.language.toStdString();
        if (auto parsed = ReplacementRules::parse(request.replacements.toStdString()); parsed) rewrite.rules = std::move(parsed).value();
        else emit warning({tr("The replacement rules are not applied: %1").arg(text(parsed.message()))});
        options.showTentative = request.showTentative;
        options.decoding = validated->decoding;

        std::optional<DictationJournal> journal;
        if (!journalPath.isEmpty()) {
            auto opened = DictationJournal::open(journalPath.toStdString());
            if (!opened) emit warning({tr("Dictated text is not journaled: %1").arg(text(opened.message()))});
            else if (auto begun = opened->beginRun(sourceName.toStdString()); !begun)
                emit warning({tr("Dictated text is not journaled: %1").arg(text(begun.message()))});
            else journal = std::move(opened).value();
        }

        StreamingCallbacks callbacks;
        callbacks.tentative = [this](const TentativeText& t) { emit tentativeChanged(t); };
        // A journal write that fails (disk full) keeps the text waiting in the journal's backlog; the
        // user is told once, and again when the journal has caught up.
        const QString caughtUp = tr("The dictation journal has caught up: every committed word is on disk again.");
        callbacks.committed = [this, &journal, &caughtUp, &rewrite](const CommittedText& committed) {
            CommittedText c = committed;
            c.text = rewrite.apply(c.text);
            // On disk first: what the window shows as committed survives a kill.
            if (journal) {
                const bool wasBehind = journal->backlog() > 0;
                auto ok = journal->commit(c.text, c.start, c.end, c.endOfUtterance);
                if (!ok && !wasBehind)
                    emit warning({tr("Dictated text cannot be journaled for now (%1). It stays on screen; the journal "
                                     "catches up when the disk has room again.")
                                      .arg(text(ok.message()))});
                else if (ok && wasBehind)
                    emit notice(caughtUp);
            }
            emit textCommitted(c);
        };
        callbacks.step = [this](const StreamingStep& step) { emit dictationStep(step); };
        // What the session reads is kept for playback (the window's word view).
        RecordingSource recording(*source, kDictationAudioSeconds);
        // The dictation's session has caches of its own: the file session's go first (made again
        // when the run is over), so that the two never sit in memory side by side.
        m_session.reset();
        auto session = StreamingSession::create(m_host.engine(), recording, options, std::move(callbacks), m_controls->session());
        if (!session) {
            makeSession(settings);  // the file session back, as before the request
            emit dictationFailed(tr("Cannot start dictation: %1").arg(text(session.message())));
            return;
        }
        m_running = true;
        DictationInfo info;
        info.source = sourceName;
        emit dictationStarted(info);
        StreamingSummary summary;
        {
            AudioSource* watched = source.get();
            std::shared_ptr<Backend> backend = m_host.engine().sharedBackend();
            DictationMonitor monitor(request.control, *session.value(), [this, watched, backend] {
                emit inputLevelChanged(watched->level());
                if (backend) emit deviceMemoryRead(backend->memoryInfo());
            });
            summary = session.value()->run();
        }
        m_running = false;
        session.value().reset();  // the dictation's caches go before the file session's come back
        if (auto failure = makeSession(settings)) {
            failure->message = tr("Cannot apply the settings: %1").arg(failure->message);
            emit warning(*failure);
        }
        if (journal && journal->backlog() > 0) {  // a last try for what is still waiting
            if (auto ok = journal->flush(); !ok)
                emit warning({tr("%n piece(s) of committed text could not be journaled (%1). They are on screen: save "
                                 "or export the transcript.",
                                 "", int(journal->backlog()))
                                  .arg(text(ok.message()))});
            else
                emit notice(caughtUp);
        }
        emit inputLevelChanged(InputLevel{});
        emit dictationAudio(DictationAudio{recording.recorded(), recording.truncated()});
        emit dictationFinished(summary);
        emit metricsUpdated(metrics());
    } catch (const std::bad_alloc& e) {
        m_running = false;
        emit dictationFailed(tr("Out of memory while dictating: %1").arg(text(e.what())));
    } catch (const std::exception& e) {
        m_running = false;
        emit dictationFailed(tr("Dictation failed: %1").arg(text(e.what())));
    }
}

} // namespace hearsay::ui
