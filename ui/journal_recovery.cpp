// Restore and Discard of the text earlier runs left (see journal_recovery.h).
#include "ui/journal_recovery.h"

#include "ui/dictation_controller.h"
#include "ui/recovery_bar.h"
#include "ui/transcript_model.h"

namespace hearsay::ui {

JournalRecovery::JournalRecovery(DictationController& dictation, TranscriptModel* transcript, RecoveryBar* bar,
                                 QObject* parent)
    : QObject(parent), m_dictation(dictation), m_transcript(transcript), m_bar(bar) {}

void JournalRecovery::offer(bool tellIfNone) {
    auto found = m_dictation.scanLeftovers();
    if (!found) {
        emit message(MessageBar::Kind::Warning, QString::fromStdString(found.message()));
        return;
    }
    m_bar->setJournals(found.value());  // the unreadable ones are named there, and left alone
    if (found->empty() && tellIfNone)
        emit message(MessageBar::Kind::Information, tr("No dictated text is waiting to be recovered."));
}

bool JournalRecovery::restore() {
    if (m_dictation.leftovers().empty()) return false;
    for (const LeftoverJournal& j : m_dictation.leftovers()) {
        m_transcript->closeUtterance();
        for (const JournalEntry& e : j.entries) m_transcript->appendCommitted(e.text, e.start, e.end, e.endOfUtterance);
    }
    m_transcript->closeUtterance();
    const auto moved = m_dictation.adoptLeftovers();
    m_bar->setJournals({});
    if (moved)
        emit message(MessageBar::Kind::Information, tr("The dictated text was restored."));
    else
        emit message(MessageBar::Kind::Warning, tr("The dictated text was restored; its journal files stay on disk (%1).")
                                                    .arg(QString::fromStdString(moved.message())));
    return true;
}

bool JournalRecovery::discard() {
    if (m_dictation.leftovers().empty()) return false;
    const auto removed = m_dictation.discardLeftovers();
    m_bar->setJournals({});
    if (!removed) emit message(MessageBar::Kind::Warning, QString::fromStdString(removed.message()));
    return true;
}

} // namespace hearsay::ui
