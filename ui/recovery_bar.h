// The offer to restore dictated text that a run which did not end normally left in the journal
// directory. A bar of its own, apart from the message strip: a model load or a warning never
// replaces it. It stays until the user restores or discards the text; "Later" only hides it
// (File › Recover last dictation… shows it again). It paints and forwards, nothing more.
#pragma once

#include "core/transcript/journal_store.h"

#include <QFrame>

#include <vector>

class QLabel;
class QPushButton;

namespace hearsay::ui {

class RecoveryBar : public QFrame {
    Q_OBJECT
public:
    explicit RecoveryBar(QWidget* parent = nullptr);

    // Shows the offer for `journals` (oldest first); hides the bar when there are none.
    void setJournals(const std::vector<LeftoverJournal>& journals);
    QString text() const;
    QPushButton* restoreButton() const { return m_restore; }
    QPushButton* discardButton() const { return m_discard; }

    // "Fri 27 Nov 2026 13:40–13:41": when a journal's run went on (local time).
    static QString period(const LeftoverJournal& journal);

signals:
    void restoreRequested();
    void discardRequested();

private:
    QLabel* m_text = nullptr;
    QPushButton* m_restore = nullptr;
    QPushButton* m_discard = nullptr;
    QPushButton* m_later = nullptr;
};

} // namespace hearsay::ui
