// Cancel tickets and switch requests (see engine_controls.h). Every atomic here is sequentially
// consistent: cancel() writes m_cancelledUpTo then reads m_running, beginJob() writes m_running
// then reads m_cancelledUpTo, so at least one of the two sees the other and the job is stopped.
#include "ui/engine_controls.h"

namespace hearsay::ui {

EngineControls::EngineControls() : m_session(std::make_shared<SessionControls>()) {}

EngineControls::Ticket EngineControls::newJob() { return ++m_issued; }

void EngineControls::cancel() {
    const Ticket upTo = m_issued.load();
    m_cancelledUpTo.store(upTo);
    const Ticket running = m_running.load();
    if (running != 0 && running <= upTo) m_session->cancel.store(true);
}

void EngineControls::requestSwitches(bool selfCache, bool crossCache, bool stepGraphs) {
    m_session->selfCache.store(selfCache);
    m_session->crossCache.store(crossCache);
    m_session->stepGraphs.store(stepGraphs);
}

void EngineControls::beginJob(Ticket ticket) {
    m_running.store(ticket);
    const auto cancelledNow = [&] { return ticket != 0 && ticket <= m_cancelledUpTo.load(); };
    m_session->cancel.store(cancelledNow());
    // A cancel() that read m_running just before the store above may have set the flag and been
    // overwritten: read again after it.
    if (cancelledNow()) m_session->cancel.store(true);
}

void EngineControls::endJob() {
    m_running.store(0);
    m_session->cancel.store(false);
}

} // namespace hearsay::ui
