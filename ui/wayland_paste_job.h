// Pasting into another application on Wayland, for the desktop application: core/typing's
// WaylandPaste (the text put on the clipboard with wl-copy, the paste chord pressed through wtype,
// the user's text put back a second later) run on a thread of its own, so that the window keeps
// painting and taking committed pieces while it runs. The typer is used by that thread until
// finished() (its owner leaves it alone meanwhile); destroying the job waits for a paste under
// way, so the user's clipboard content still goes back.
#pragma once

#include "core/typing/insertion_method.h"
#include "core/typing/text_typer.h"

#include <QObject>
#include <QString>

#include <string>
#include <thread>

namespace hearsay::ui {

class WaylandPasteJob : public QObject {
    Q_OBJECT
public:
    explicit WaylandPasteJob(QObject* parent = nullptr);
    ~WaylandPasteJob() override;

    // Starts pasting `text` with `chord` pressed by `typer`; false when a paste is under way.
    bool start(const std::string& text, TextTyper& typer, const PasteChord& chord);
    bool busy() const { return m_busy; }

signals:
    // The chord has gone to the target.
    void chordSent();
    // The paste is over. `ok` false: nothing was pasted and the clipboard is as it was, `note`
    // says why. `ok` true: `restored` says whether the user's content is back, `note` why not.
    void finished(bool ok, bool restored, const QString& note);

private:
    std::thread m_thread;
    bool m_busy = false;
};

} // namespace hearsay::ui
