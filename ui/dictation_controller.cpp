// The dictation state machine and its journals (see dictation_controller.h).
#include "ui/dictation_controller.h"

#include <algorithm>
#include <utility>

namespace hearsay::ui {

DictationController::~DictationController() {
    if (m_control) m_control->stop = true;
}

DictationRequest DictationController::begin(const EngineSettings& settings, const QString& file, double speed,
                                            QString* journalProblem) {
    DictationRequest request;
    request.device = settings.inputDevice;
    request.file = file;
    request.speed = speed;
    request.stepSeconds = settings.stepSeconds;
    request.vadThreshold = settings.vadThreshold;
    request.commit = settings.commit;
    request.vocabulary = settings.vocabulary;
    request.replacements = settings.replacements;
    request.spokenCommands = settings.spokenCommands;
    request.showTentative = settings.showTentative;
    request.control = std::make_shared<DictationControl>();
    m_control = request.control;
    m_source.clear();
    m_phase = Phase::Starting;
    if (auto journal = ensureJournal(); !journal && journalProblem) {
        *journalProblem = QString::fromStdString(journal.message());
    }
    return request;
}

bool DictationController::stop() {
    if ((m_phase != Phase::Starting && m_phase != Phase::Listening) || !m_control) return false;
    m_control->stop = true;
    m_phase = Phase::Stopping;
    return true;
}

EngineMetrics DictationController::started(const DictationInfo& info, EngineMetrics shown) {
    m_source = info.source;
    if (m_phase == Phase::Starting) m_phase = Phase::Listening;  // a Stop pressed while starting stays
    shown.windows = 0;
    shown.decodeMs = 0.0;
    shown.decodeCalls = 0;
    shown.audioSeconds = shown.wallSeconds = 0.0;
    shown.running = true;
    return shown;
}

EngineMetrics DictationController::withStep(EngineMetrics shown, const StreamingStep& step) {
    const DeviceMemory device = shown.cache.device;
    shown.cache = step.cache;
    if (!shown.cache.device.known) shown.cache.device = device;
    shown.selfCache = step.selfCache;
    shown.crossCache = step.crossCache;
    shown.maxBeams = std::max(1, step.cache.beams);
    if (step.decoded) {
        shown.lastEncoderMs = step.encoderMs;
        ++shown.windows;
        shown.decodeMs += step.decodeMs;
        shown.decodeCalls += step.tokens;
    }
    shown.audioSeconds = step.streamSeconds;
    shown.wallSeconds += step.stepMs / 1000.0;
    return shown;
}

void DictationController::finished(const StreamingSummary& summary) {
    m_lastSummary = summary;
    m_control.reset();
    m_phase = Phase::Idle;
}

void DictationController::failed() {
    m_control.reset();
    m_phase = Phase::Idle;
}

Result<void> DictationController::ensureJournal() {
    if (m_own.held()) return {};
    auto lease = m_journals.create();  // this window's own journal, new (never an earlier run's)
    if (!lease) return lease.error();
    m_own = std::move(lease).value();
    return {};
}

Result<std::vector<LeftoverJournal>> DictationController::scanLeftovers() {
    auto found = m_journals.leftovers();
    if (!found) return found.error();
    m_leftovers.clear();
    for (const LeftoverJournal& j : found.value())
        if (j.error.empty()) m_leftovers.push_back(j);
    return found;
}

Result<void> DictationController::adoptLeftovers() {
    std::vector<LeftoverJournal> adopted = std::exchange(m_leftovers, {});
    if (adopted.empty()) return {};
    if (auto own = ensureJournal(); !own) return own;
    return m_journals.moveInto(m_own.path(), adopted);
}

Result<void> DictationController::discardLeftovers() {
    std::vector<LeftoverJournal> discarded = std::exchange(m_leftovers, {});
    if (discarded.empty()) return {};
    return m_journals.remove(discarded);
}

void DictationController::closeNormally() {
    [[maybe_unused]] auto removed = m_own.remove();
}

} // namespace hearsay::ui
