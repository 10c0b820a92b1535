// The one way the GUI thread reaches a job the worker is running: Cancel and the switches (the
// two caches, the step graphs) must act within a decoder step, while the worker's thread is busy
// and its queued slots wait, so they cannot be queued calls. The worker owns this object and the
// SessionControls its sessions read; the window and the job controllers hold it and call its
// request methods, the only writers of those atomics from the GUI side. They never touch the
// session's state themselves.
//
// Cancel is per job: each job the GUI queues carries a ticket (newJob()), and cancel() stops every
// job ticketed so far: the running one at its next encoder run or decoder step, one still queued
// as soon as it starts. A job queued after the cancel is not affected, and a cancel that comes
// after its job ended is not left behind for the next one.
#pragma once

#include "core/engine/session_controls.h"

#include <QtGlobal>

#include <atomic>
#include <memory>

namespace hearsay::ui {

class EngineControls {
public:
    using Ticket = quint64;  // 0: a job without one (cancel() does not reach it before it starts)

    EngineControls();

    // ---- the GUI's requests (any thread) ----
    // The ticket of a job about to be queued; the job's request carries it to the worker.
    Ticket newJob();
    // Every job ticketed so far stops (see above).
    void cancel();
    // The switches sessions apply at their next decoder step (or at once when idle).
    void requestSwitches(bool selfCache, bool crossCache, bool stepGraphs);

    // ---- the worker's side ----
    // The job with `ticket` starts: cancelled already when cancel() came after its ticket.
    void beginJob(Ticket ticket);
    void endJob();
    // Whether the running job was asked to stop.
    bool cancelled() const { return m_session->cancel.load(); }
    // What the worker's sessions read.
    const std::shared_ptr<SessionControls>& session() const { return m_session; }

private:
    std::shared_ptr<SessionControls> m_session;
    std::atomic<Ticket> m_issued{0};         // the last ticket handed out
    std::atomic<Ticket> m_cancelledUpTo{0};  // jobs with a ticket up to this one are cancelled
    std::atomic<Ticket> m_running{0};        // the ticket of the running job (0: none, or one without)
};

} // namespace hearsay::ui
