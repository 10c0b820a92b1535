// Dictation into other applications, for the main window: the global shortcut (push-to-talk or
// toggle, as the settings say) turned into start/stop requests, and committed text typed into
// the focused application (core/typing) while Hearsay's own window does not have the focus: typed
// key by key, or pasted through the clipboard (ui/clipboard_paste.h) when the settings or the
// text call for it (core/typing/insertion_method.h); a newline in the text goes in as the settings
// say (core/typing/newline_mode.h: Return, a Shift+Enter chord between pieces, or a space). The
// window forwards the settings and each committed piece, and paints status() in the panel.
#pragma once

#include "core/typing/insertion_spacing.h"
#include "core/typing/newline_mode.h"
#include "core/typing/text_typer.h"
#include "ui/anywhere_settings.h"
#include "ui/clipboard_paste.h"
#include "ui/global_shortcut.h"

#include <QObject>
#include <QString>

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace hearsay::ui {

class DictateAnywhere : public QObject {
    Q_OBJECT
public:
    explicit DictateAnywhere(QObject* parent = nullptr);

    // Grabs the settings' shortcut (releasing the old one); the outcome is in shortcutStatus().
    void apply(const AnywhereSettings& settings);
    const AnywhereSettings& settings() const { return m_settings; }
    QString shortcutStatus() const { return m_shortcut.mechanism(); }
    QString typingStatus() const;
    GlobalShortcut& shortcut() { return m_shortcut; }
    ClipboardPaste& clipboardPaste() { return m_paste; }

    // A new dictation run: typing is tried again (one space still separates it from the text the
    // last run typed).
    void runStarted();
    // Types a committed piece when typing is on and `ownWindowActive` is false. While the
    // shortcut is held (push-to-talk) the keyboard belongs to its grab, so pieces wait and are
    // typed when it is let go; so do pieces committed while a paste is under way (they follow it
    // in order), and pieces committed while the desktop asks the user whether Hearsay may type
    // (the portal, at the first piece). The first failure of a run is reported by typingFailed(),
    // and nothing more is typed in that run.
    void committed(const std::string& text, bool ownWindowActive);

signals:
    void startRequested();
    void stopRequested();
    void toggleRequested();
    void typingFailed(const QString& why);
    // Text went into the focused application: typed (`how` empty) or pasted with the chord `how`,
    // once the chord has gone (a Shift+Enter line break between pieces is not reported).
    void inserted(const QString& text, const QString& how);
    // shortcutStatus() or typingStatus() may read differently (a grab tried, the typer opened or failed).
    void statusChanged();

private:
    AnywhereSettings m_settings;
    GlobalShortcut m_shortcut;
    std::unique_ptr<TextTyper> m_typer;
    ClipboardPaste m_paste;  // after the typer: a Wayland paste's thread uses it until m_paste is gone
    QString m_typerError;
    InsertionSpacing m_spacing;
    bool m_failedThisRun = false;
    std::vector<std::string> m_waiting;  // committed while the shortcut was held, in order

    // A step of the text (newline_mode.h), and whether the text it came from is pasted.
    struct Step {
        InsertionStep step;
        bool paste = false;
    };
    std::deque<Step> m_steps;  // planned, not yet in: a paste is under way before them

    void typeWaiting();
    void insertWaiting();
    // Opens the typer; where it asks the user (the portal's Start, textTyperAsksTheUser()) on a
    // thread of its own, so that the window keeps painting and taking pieces while the desktop's
    // question is open: they wait in m_waiting and follow once the answer is in (typerOpened()).
    void openTyper();
    void typerOpened(Result<std::unique_ptr<TextTyper>> opened);
    bool m_opening = false;
    void runSteps();
    bool pasted(const std::string& text);
    void fail(const std::string& why);
    bool m_inserting = false;  // within typeWaiting(): the clipboard path runs the event loop
    QString m_pasteText, m_pasteChord;  // the paste under way: for inserted(), and typed if it fails
};

} // namespace hearsay::ui
