// Pasting through the clipboard, X11 or Wayland (see clipboard_paste.h).
#include "ui/clipboard_paste.h"

#include "core/typing/wayland_typer.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QGuiApplication>
#include <QMimeData>
#include <QScreen>
#include <QtGui/qguiapplication_platform.h>

#include <xcb/xcb.h>

#include <cstdlib>
#include <cstring>

namespace hearsay::ui {

ClipboardPaste::ClipboardPaste(QObject* parent) : QObject(parent) {
    m_settle.setSingleShot(true);
    m_timeout.setSingleShot(true);
    connect(&m_settle, &QTimer::timeout, this, &ClipboardPaste::finish);
    connect(&m_timeout, &QTimer::timeout, this, &ClipboardPaste::finish);
    connect(&m_wayland, &WaylandPasteJob::chordSent, this, &ClipboardPaste::chordSent);
    connect(&m_wayland, &WaylandPasteJob::finished, this, [this](bool ok, bool restored, const QString& note) {
        if (!ok) emit failed(note);
        emit finished(ok, restored);
    });
    QCoreApplication::instance()->installNativeEventFilter(this);
}

ClipboardPaste::~ClipboardPaste() {
    blockSignals(true);  // whoever listens may be going too
    if (x11Busy()) finish();  // the user's content goes back (a Wayland paste's, as m_wayland ends)
    if (m_clockWindow != 0 && qGuiApp) {
        xcb_connection_t* connection = qGuiApp->nativeInterface<QNativeInterface::QX11Application>()->connection();
        xcb_destroy_window(connection, m_clockWindow);
        xcb_flush(connection);
    }
    if (QCoreApplication::instance()) QCoreApplication::instance()->removeNativeEventFilter(this);
}

uint32_t ClipboardPaste::atom(const char* name) {
    auto* x11 = qGuiApp->nativeInterface<QNativeInterface::QX11Application>();
    xcb_connection_t* connection = x11->connection();
    xcb_intern_atom_reply_t* reply =
        xcb_intern_atom_reply(connection, xcb_intern_atom(connection, 0, uint16_t(std::strlen(name)), name), nullptr);
    const uint32_t value = reply ? reply->atom : 0;
    std::free(reply);
    return value;
}

// Qt takes a selection with the time of the last event it saw; a program that took the clipboard
// later (the user's copy a moment ago) would win against that stale time, and the paste would
// carry the user's content. So Qt is shown a fresh time first: zero bytes appended to a property
// of a window of Hearsay's own, whose PropertyNotify carries the server's time, which Qt reads
// from every PropertyNotify. The event loop runs (user input excluded) until Qt has read it.
bool ClipboardPaste::refreshTimestamp() {
    xcb_connection_t* connection = qGuiApp->nativeInterface<QNativeInterface::QX11Application>()->connection();
    if (m_clockWindow == 0) {
        m_clockWindow = xcb_generate_id(connection);
        const uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
        xcb_create_window(connection, XCB_COPY_FROM_PARENT, m_clockWindow,
                          xcb_setup_roots_iterator(xcb_get_setup(connection)).data->root, -10, -10, 1, 1, 0,
                          XCB_WINDOW_CLASS_INPUT_ONLY, XCB_COPY_FROM_PARENT, XCB_CW_EVENT_MASK, &mask);
        m_clockProperty = atom("_HEARSAY_TIMESTAMP");
    }
    QEventLoop loop;
    m_clockLoop = &loop;
    m_clockSeen = false;
    xcb_change_property(connection, XCB_PROP_MODE_APPEND, m_clockWindow, m_clockProperty, XCB_ATOM_STRING, 8, 0, nullptr);
    xcb_flush(connection);
    QTimer::singleShot(kClockWaitMs, &loop, &QEventLoop::quit);
    if (!m_clockSeen) loop.exec(QEventLoop::ExcludeUserInputEvents);
    m_clockLoop = nullptr;
    return m_clockSeen;
}

bool ClipboardPaste::ownsMode() const {
    const QClipboard* clipboard = QGuiApplication::clipboard();
    return m_mode == QClipboard::Clipboard ? clipboard->ownsClipboard() : clipboard->ownsSelection();
}

Result<void> ClipboardPaste::paste(const QString& text, TextTyper& typer, const FocusedWindow& target,
                                   const PasteChord& chord) {
    if (busy()) return makeError("cannot paste: a paste is still under way");
    if (isWaylandTyper(typer)) {
        m_wayland.start(text.toStdString(), typer, chord);
        return {};
    }
    if (!qGuiApp || !qGuiApp->nativeInterface<QNativeInterface::QX11Application>())
        return makeError("cannot paste: the clipboard path needs an X11 session");
    m_mode = chord.primarySelection ? QClipboard::Selection : QClipboard::Clipboard;
    m_selection = chord.primarySelection ? uint32_t(XCB_ATOM_PRIMARY) : atom("CLIPBOARD");
    QClipboard* clipboard = QGuiApplication::clipboard();
    // The user's content, every format it offers, copied now: the program that holds it may
    // change or close before it goes back.
    m_saved.reset();
    if (const QMimeData* current = clipboard->mimeData(m_mode); current && !current->formats().isEmpty()) {
        m_saved = std::make_unique<QMimeData>();
        for (const QString& format : current->formats()) m_saved->setData(format, current->data(format));
    }
    m_starting = true;
    const bool timed = refreshTimestamp();
    m_starting = false;
    if (!timed) {
        m_saved.reset();
        return makeError("cannot paste: the X server's time could not be read");
    }
    auto* data = new QMimeData;
    data->setText(text);
    clipboard->setMimeData(data, m_mode);  // the clipboard owns `data` from here
    if (clipboard->mimeData(m_mode) != data) {  // asks the X server who owns the selection now
        m_saved.reset();
        return makeError("cannot paste: the X server did not give Hearsay the clipboard");
    }
    m_ours = data;
    m_target = target;
    m_fetched = false;
    if (auto pressed = typer.pressChord(chord.keysyms); !pressed) {
        finish();
        return makeError("cannot paste with " + chord.name + ": " + pressed.message());
    }
    emit chordSent();
    if (busy()) m_timeout.start(kFetchWaitMs);  // a slot of chordSent may have ended it
    return {};
}

bool ClipboardPaste::nativeEventFilter(const QByteArray& eventType, void* message, qintptr*) {
    if (eventType != "xcb_generic_event_t") return false;
    const auto* event = static_cast<const xcb_generic_event_t*>(message);
    if ((event->response_type & 0x7F) == XCB_PROPERTY_NOTIFY && m_clockLoop &&
        static_cast<const xcb_property_notify_event_t*>(message)->window == m_clockWindow) {
        m_clockSeen = true;
        m_clockLoop->quit();  // after Qt has handled the event (and read its time)
        return false;
    }
    if (!x11Busy()) return false;
    if ((event->response_type & 0x7F) != XCB_SELECTION_REQUEST) return false;
    const auto* request = static_cast<const xcb_selection_request_event_t*>(message);
    if (request->selection != m_selection) return false;
    if (m_target.id != 0) {
        const uint32_t mask = xcb_get_setup(qGuiApp->nativeInterface<QNativeInterface::QX11Application>()->connection())
                                  ->resource_id_mask;
        if ((request->requestor & ~mask) != (uint32_t(m_target.id) & ~mask)) return false;  // another client
    }
    static const uint32_t targets = atom("TARGETS"), timestamp = atom("TIMESTAMP");
    if (request->target == targets || request->target == timestamp) return false;  // not the text yet
    m_fetched = true;
    m_settle.start(kSettleMs);  // Qt serves the request as this returns
    return false;
}

void ClipboardPaste::finish() {
    m_settle.stop();
    m_timeout.stop();
    if (!x11Busy()) return;
    QClipboard* clipboard = QGuiApplication::clipboard();
    bool restored = false;
    if (ownsMode() && clipboard->mimeData(m_mode) == m_ours) {
        if (m_saved) clipboard->setMimeData(m_saved.release(), m_mode);
        else clipboard->clear(m_mode);
        restored = true;
    }
    m_saved.reset();
    m_ours = nullptr;
    emit finished(m_fetched, restored);
}

} // namespace hearsay::ui
