// The dictation state machine between the main window and the engine's worker. It builds a
// run's request from the settings, holds the run's Stop flag and phase, owns the window's
// journal (made at its first dictation, the destination of restored text, removed at a normal
// close) and the journals earlier runs left, and folds each step's figures into the metrics the
// cache panel paints. The window forwards what the user asked (Record, Stop, Restore, Discard)
// and the worker's reports, and paints what this returns; it keeps no dictation state itself.
#pragma once

#include "core/transcript/journal_store.h"
#include "core/util/result.h"
#include "ui/engine_settings.h"
#include "ui/worker_messages.h"

#include <QString>

#include <memory>
#include <vector>

namespace hearsay::ui {

class DictationController {
public:
    enum class Phase { Idle, Starting, Listening, Stopping };

    DictationController() = default;
    // Stops a run that is still going (its worker finishes the words already captured).
    ~DictationController();
    DictationController(const DictationController&) = delete;
    DictationController& operator=(const DictationController&) = delete;

    Phase phase() const { return m_phase; }

    // ---- a run -------------------------------------------------------------------------------
    // Idle → Starting: the request for the worker (the input device of `settings`, or `file`
    // played at `speed` times real time) and the journal it writes to. `journalProblem` gets why
    // there is no journal, when the run must go without one (the text is then on screen only).
    DictationRequest begin(const EngineSettings& settings, const QString& file, double speed, QString* journalProblem);
    // Starting/Listening → Stopping: the worker transcribes what was captured, then finishes.
    // False when there is no run to stop.
    bool stop();
    // The worker's reports. started(): Listening, from `info.source`; the metrics the cache
    // panel shows from now on (the run's counters from zero, the rest of `shown` kept).
    EngineMetrics started(const DictationInfo& info, EngineMetrics shown);
    // A step: `shown` with the step's caches and switches, its speed summed over the run.
    static EngineMetrics withStep(EngineMetrics shown, const StreamingStep& step);
    // The run ended (with or without an error in the summary) or never started: Idle.
    void finished(const StreamingSummary& summary);
    void failed();
    // What the current or last run listened to, and the last run's summary.
    const QString& source() const { return m_source; }
    const StreamingSummary& lastSummary() const { return m_lastSummary; }

    // ---- journals ----------------------------------------------------------------------------
    // This window's own journal; empty before its first dictation or restore.
    QString journalPath() const { return QString::fromStdString(m_own.path().string()); }
    // Journals left by runs that did not end normally: all of them for the recovery bar (the
    // unreadable ones carry their error and are left alone), the readable ones kept here.
    Result<std::vector<LeftoverJournal>> scanLeftovers();
    const std::vector<LeftoverJournal>& leftovers() const { return m_leftovers; }
    // After the window painted leftovers(): their files move into this window's journal (a
    // crash after restoring loses nothing); either way they are no longer offered.
    Result<void> adoptLeftovers();
    // Removes the leftovers' files without restoring them.
    Result<void> discardLeftovers();
    // A normal close, after stop(): this window's journal goes (its text was on screen until now).
    void closeNormally();

private:
    Result<void> ensureJournal();

    Phase m_phase = Phase::Idle;
    std::shared_ptr<DictationControl> m_control;  // the run's Stop, read by the worker
    QString m_source;
    StreamingSummary m_lastSummary;
    JournalStore m_journals;                  // the journal directory
    JournalLease m_own;                       // this window's journal, locked while it is open
    std::vector<LeftoverJournal> m_leftovers; // earlier runs' readable journals, offered for restoring
};

} // namespace hearsay::ui
