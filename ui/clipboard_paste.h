// Committed text pasted into another application through the clipboard.
//
// X11: the text is put on the clipboard (Hearsay owns the CLIPBOARD selection, or PRIMARY for
// terminals that paste that, and Qt serves it from the event loop), the typer presses the target's
// paste chord, and once the target has fetched the text the user's own clipboard content is put
// back, unless another program set the clipboard meanwhile (then that program's content stays).
// "Fetched": a SelectionRequest for the text from the focused window's client (X11 gives all
// windows of one client the same resource-id base), seen by a native event filter and served by
// Qt right after; the user's content goes back kSettleMs after the last such request (a target
// may ask for TARGETS first, then the text, or for several formats). A target that never asks
// (a chord it does not bind) gets kFetchWaitMs before the content goes back.
//
// Wayland (the typer is wtype's): Qt cannot own another program's Wayland clipboard, so
// core/typing's WaylandPaste does it with wl-copy, on a thread of its own (ui/wayland_paste_job.h);
// the same signals follow, and failed() when it could not paste (the text is not in the target).
#pragma once

#include "core/typing/insertion_method.h"
#include "core/typing/text_typer.h"
#include "core/util/result.h"
#include "ui/wayland_paste_job.h"

#include <QAbstractNativeEventFilter>
#include <QClipboard>
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>

class QEventLoop;
class QMimeData;

namespace hearsay::ui {

class ClipboardPaste : public QObject, public QAbstractNativeEventFilter {
    Q_OBJECT
public:
    static constexpr int kFetchWaitMs = 3000;
    static constexpr int kSettleMs = 100;
    static constexpr int kClockWaitMs = 1000;  // for the X server's time (a round trip)

    explicit ClipboardPaste(QObject* parent = nullptr);
    ~ClipboardPaste() override;

    // Starts pasting `text` into `target` with `chord` (pressed by `typer`); finished() follows.
    // An error (the clipboard is then as it was) when this is neither a Wayland typer nor an X11
    // session, the selection cannot be taken, or the chord cannot be pressed. On X11 the event
    // loop runs for a round trip to the X server (user input excluded) before the chord goes. On
    // Wayland the paste runs on a thread and its errors come as failed(); `typer` is used by it
    // until finished().
    Result<void> paste(const QString& text, TextTyper& typer, const FocusedWindow& target, const PasteChord& chord);
    // A paste is under way (between paste() and finished()).
    bool busy() const { return x11Busy() || m_wayland.busy(); }

    bool nativeEventFilter(const QByteArray& eventType, void* message, qintptr* result) override;

signals:
    // The chord has gone to the target.
    void chordSent();
    // A paste that was started could not go in (Wayland: wl-clipboard missing, the copy or the
    // chord failed): the text is not in the target and the clipboard is as it was. finished() follows.
    void failed(const QString& why);
    // The paste is over: whether the target fetched the text (on Wayland: whether the chord
    // went), and whether the user's clipboard content was put back (false: another program set
    // the clipboard meanwhile, or the paste failed).
    void finished(bool fetched, bool restored);

private:
    void finish();
    bool x11Busy() const { return m_ours != nullptr || m_starting; }
    bool ownsMode() const;
    bool refreshTimestamp();
    uint32_t atom(const char* name);

    QClipboard::Mode m_mode = QClipboard::Clipboard;
    std::unique_ptr<QMimeData> m_saved;  // the user's content, copied; null when the selection was empty
    QMimeData* m_ours = nullptr;          // the text on the clipboard (the clipboard owns it)
    FocusedWindow m_target;
    uint32_t m_selection = 0;
    bool m_fetched = false;
    QTimer m_settle, m_timeout;
    uint32_t m_clockWindow = 0, m_clockProperty = 0;
    QEventLoop* m_clockLoop = nullptr;
    bool m_clockSeen = false;
    bool m_starting = false;  // within paste(), whose event loop may deliver more
    WaylandPasteJob m_wayland;
};

} // namespace hearsay::ui
