// Dictation into other applications (see dictate_anywhere.h).
#include "ui/dictate_anywhere.h"

#include <QCoreApplication>
#include <QPointer>

#include <thread>
#include <utility>

namespace hearsay::ui {

DictateAnywhere::DictateAnywhere(QObject* parent) : QObject(parent), m_shortcut(this), m_paste(this) {
    connect(&m_paste, &ClipboardPaste::chordSent, this, [this] { emit inserted(m_pasteText, m_pasteChord); });
    // A paste that could not go in (Wayland reports it from its thread): typed instead, first,
    // unless the settings say paste only.
    connect(&m_paste, &ClipboardPaste::failed, this, [this](const QString& why) {
        if (m_settings.insertion == InsertionMode::Paste) fail(why.toStdString());
        else if (!m_failedThisRun) m_steps.push_front({InsertionStep{m_pasteText.toStdString()}, false});
    });
    connect(&m_paste, &ClipboardPaste::finished, this, [this] {
        if (!m_shortcut.isDown()) typeWaiting();  // the pieces committed meanwhile
    });
    connect(&m_shortcut, &GlobalShortcut::changed, this, &DictateAnywhere::statusChanged);  // the portal's answer
    connect(&m_shortcut, &GlobalShortcut::pressed, this, [this] {
        if (m_settings.pushToTalk) emit startRequested();
        else emit toggleRequested();
    });
    connect(&m_shortcut, &GlobalShortcut::released, this, [this] {
        typeWaiting();  // the grab has ended with the key: the focused application has the keyboard again
        if (m_settings.pushToTalk) emit stopRequested();
    });
}

void DictateAnywhere::apply(const AnywhereSettings& settings) {
    m_settings = settings;
    if (settings.shortcut.isEmpty()) m_shortcut.release();
    else m_shortcut.grab(settings.shortcut);
    emit statusChanged();
}

QString DictateAnywhere::typingStatus() const {
    if (!m_settings.typeText) return tr("off");
    if (m_typer) return QString::fromStdString(m_typer->describe());
    if (m_opening) return tr("waiting for the desktop's answer (may Hearsay use the keyboard?)");
    return m_typerError.isEmpty() ? tr("at the first committed text") : m_typerError;
}

void DictateAnywhere::runStarted() { m_failedThisRun = false; }

void DictateAnywhere::committed(const std::string& text, bool ownWindowActive) {
    if (!m_settings.typeText || ownWindowActive || m_failedThisRun) return;
    m_waiting.push_back(text);
    if (!m_shortcut.isDown()) typeWaiting();
}

void DictateAnywhere::typeWaiting() {
    // Pieces committed while a paste is under way, or while the clipboard path waits for the X
    // server (its event loop delivers them), follow it, in order.
    if (m_inserting) return;
    m_inserting = true;
    while ((!m_waiting.empty() || !m_steps.empty()) && !m_paste.busy() && !m_opening) {
        if (m_steps.empty()) insertWaiting();
        runSteps();
    }
    m_inserting = false;
}

void DictateAnywhere::fail(const std::string& why) {
    m_failedThisRun = true;
    m_steps.clear();
    emit typingFailed(QString::fromStdString(why));
}

void DictateAnywhere::insertWaiting() {
    if (m_failedThisRun) m_waiting.clear();
    if (m_waiting.empty()) return;
    if (!m_typer) {
        openTyper();
        if (!m_typer) return;  // failed, or the desktop is asking: the pieces wait
    }
    std::vector<std::string> pieces = std::exchange(m_waiting, {});
    std::string text;
    for (const std::string& piece : pieces) text += m_spacing.next(piece);
    // Typed or pasted is chosen for the whole text (its length, its characters), then its
    // newlines are planned: every piece of it goes the same way.
    const InsertionMode mode = m_settings.insertion;
    const auto missing = mode == InsertionMode::Automatic ? m_typer->missingCharacter(text) : std::nullopt;
    const bool paste = pasteReason(mode, text, missing, pasteFromCodePoints(*m_typer)) != PasteReason::Typed;
    for (InsertionStep& step : planNewlines(text, m_settings.newline)) m_steps.push_back({std::move(step), paste});
}

void DictateAnywhere::openTyper() {
    if (m_opening) return;
    if (!textTyperAsksTheUser()) {
        typerOpened(openTextTyper());
        return;
    }
    m_opening = true;
    emit statusChanged();
    // The thread holds no pointer to this object: its answer goes through the application's event
    // loop, to this object only if it still exists (a typer opened for a window that has gone is
    // closed there).
    QPointer<DictateAnywhere> self(this);
    std::thread([self] {
        auto opened = std::make_shared<Result<std::unique_ptr<TextTyper>>>(openTextTyper());
        QMetaObject::invokeMethod(QCoreApplication::instance(), [self, opened] {
            if (self) self->typerOpened(std::move(*opened));
        }, Qt::QueuedConnection);
    }).detach();
}

void DictateAnywhere::typerOpened(Result<std::unique_ptr<TextTyper>> opened) {
    const bool answered = std::exchange(m_opening, false);
    if (!opened) {
        m_typerError = QString::fromStdString(opened.message());
        fail(opened.message());
        m_waiting.clear();  // in the transcript and the journal
    } else {
        m_typer = std::move(opened).value();
    }
    emit statusChanged();
    if (answered && !m_shortcut.isDown()) typeWaiting();  // the pieces that waited for the answer
}

// Runs the planned steps in order until they are done, one fails, or a paste starts (the rest
// follow when it has finished: the target may fetch the text after later keys arrived).
void DictateAnywhere::runSteps() {
    while (!m_steps.empty() && !m_paste.busy() && !m_failedThisRun) {
        const Step next = std::move(m_steps.front());
        m_steps.pop_front();
        if (next.step.lineBreak) {
            if (auto pressed = m_typer->pressChord(shiftEnterChord()); !pressed) fail(pressed.message());
            continue;
        }
        if (next.paste && pasted(next.step.text)) continue;
        if (auto typed = m_typer->type(next.step.text); !typed) {
            fail(typed.message());
            continue;
        }
        emit inserted(QString::fromStdString(next.step.text), QString());
    }
}

// Pastes `text`; false when it is to be typed instead (a paste that cannot start in automatic
// mode falls back to typing; in paste mode it fails the run).
bool DictateAnywhere::pasted(const std::string& text) {
    const FocusedWindow target = m_typer->focusedWindow();
    const PasteChord chord = pasteChordFor(target);
    m_pasteText = QString::fromStdString(text);
    m_pasteChord = QString::fromStdString(chord.name);
    if (auto started = m_paste.paste(m_pasteText, *m_typer, target, chord); !started) {
        if (m_settings.insertion != InsertionMode::Paste) return false;
        fail(started.message());
    }
    return true;  // inserted() follows when the chord has gone
}

} // namespace hearsay::ui
