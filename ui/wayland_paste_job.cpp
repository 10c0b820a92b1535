// A Wayland paste on a thread of its own (see wayland_paste_job.h).
#include "ui/wayland_paste_job.h"

#include "core/typing/wayland_paste.h"

#include <QMetaObject>

namespace hearsay::ui {

WaylandPasteJob::WaylandPasteJob(QObject* parent) : QObject(parent) {}

WaylandPasteJob::~WaylandPasteJob() {
    // The results it posts are dropped with this object.
    if (m_thread.joinable()) m_thread.join();
}

bool WaylandPasteJob::start(const std::string& text, TextTyper& typer, const PasteChord& chord) {
    if (m_busy) return false;
    if (m_thread.joinable()) m_thread.join();  // the last one has posted its result: it is ending
    m_busy = true;
    m_thread = std::thread([this, text, &typer, chord] {
        auto pasted = WaylandPaste().paste(text, typer, chord, [this] {
            QMetaObject::invokeMethod(this, [this] { emit chordSent(); }, Qt::QueuedConnection);
        });
        const bool ok = pasted.ok();
        const bool restored = ok && pasted->restored;
        const QString note = QString::fromStdString(ok ? pasted->note : pasted.message());
        QMetaObject::invokeMethod(this, [this, ok, restored, note] {
            m_busy = false;
            emit finished(ok, restored, note);
        }, Qt::QueuedConnection);
    });
    return true;
}

} // namespace hearsay::ui
