// The dictate-anywhere panel (see dictate_anywhere_panel.h).
#include "ui/dictate_anywhere_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QKeySequenceEdit>
#include <QLabel>

namespace hearsay::ui {

DictateAnywherePanel::DictateAnywherePanel(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    m_shortcut = new QKeySequenceEdit(this);
    m_shortcut->setObjectName("anywhereShortcut");
    m_shortcut->setToolTip(tr("A key combination that starts dictation whichever application has the focus"));
    form->addRow(tr("&Shortcut"), m_shortcut);
    m_mode = new QComboBox(this);
    m_mode->setObjectName("anywhereMode");
    m_mode->addItem(tr("Press to start, press again to stop"));
    m_mode->addItem(tr("Hold to talk (push-to-talk)"));
    form->addRow(tr("&Mode"), m_mode);
    m_type = new QCheckBox(tr("Type into the focused application"), this);
    m_type->setObjectName("anywhereType");
    m_type->setToolTip(tr("Only committed text is typed, never tentative words; it is also in the transcript and the "
                          "journal. Nothing is typed while Hearsay's own window has the focus."));
    form->addRow(QString(), m_type);
    m_insertion = new QComboBox(this);
    m_insertion->setObjectName("anywhereInsertion");
    m_insertion->addItem(tr("Automatic"));  // InsertionMode order
    m_insertion->addItem(tr("Type key by key"));
    m_insertion->addItem(tr("Paste through the clipboard"));
    m_insertion->setToolTip(tr("Automatic types key by key, and pastes long text and characters the keyboard layout "
                               "lacks. Pasting puts the text on the clipboard for a moment and presses Ctrl+V (Ctrl+Shift+V "
                               "in a terminal, Shift+Insert in xterm); your clipboard is put back afterwards unless "
                               "another program changed it meanwhile."));
    form->addRow(tr("&Insert by"), m_insertion);
    m_newline = new QComboBox(this);
    m_newline->setObjectName("anywhereNewline");
    m_newline->addItem(tr("Return"));  // NewlineMode order
    m_newline->addItem(tr("Shift+Enter (a line break in chat boxes)"));
    m_newline->addItem(tr("Nothing: a space"));
    m_newline->setToolTip(tr("A spoken \"new line\" typed as Return sends the message in most chat applications; "
                             "Shift+Enter is their line break (and a line break in editors too)."));
    form->addRow(tr("Type a &new line as"), m_newline);
    m_indicator = new QCheckBox(tr("Show a dictation indicator"), this);
    m_indicator->setObjectName("anywhereIndicator");
    m_indicatorTip = tr("While dictating into another application: a small window at the bottom of the "
                        "screen that never takes the focus: whether "
                        "Hearsay listens, the input level, the words not yet committed, and a button that "
                        "copies the text of the last dictation. Drag it to move it.");
    m_indicator->setToolTip(m_indicatorTip);
    form->addRow(QString(), m_indicator);
    m_tray = new QCheckBox(tr("Keep running in the tray"), this);
    m_tray->setObjectName("anywhereKeepInTray");
    form->addRow(QString(), m_tray);
    m_startInTray = new QCheckBox(tr("Start hidden in the tray"), this);
    m_startInTray->setObjectName("anywhereStartInTray");
    m_startInTray->setToolTip(tr("Hearsay starts with its window hidden: the shortcut and the tray icon work at once. "
                                 "For a login entry, hearsay --hidden does the same."));
    form->addRow(QString(), m_startInTray);
    // Why the tray cannot be chosen, wrapped under the box (in the box's own text it would set the
    // dock's width).
    m_trayUnavailable = new QLabel(this);
    m_trayUnavailable->setObjectName("anywhereTrayUnavailable");
    m_trayUnavailable->setWordWrap(true);
    m_trayUnavailable->setEnabled(false);
    m_trayUnavailable->hide();
    form->addRow(QString(), m_trayUnavailable);
    setTrayAvailable(true, QString());
    m_status = new QLabel(this);
    m_status->setObjectName("anywhereStatus");
    m_status->setWordWrap(true);
    form->addRow(m_status);
    auto changed = [this] {
        if (!m_updating) emit settingsChanged(settings());
    };
    connect(m_shortcut, &QKeySequenceEdit::editingFinished, this, changed);
    connect(m_mode, &QComboBox::currentIndexChanged, this, changed);
    connect(m_type, &QCheckBox::toggled, this, changed);
    connect(m_insertion, &QComboBox::currentIndexChanged, this, changed);
    connect(m_newline, &QComboBox::currentIndexChanged, this, changed);
    connect(m_indicator, &QCheckBox::toggled, this, changed);
    connect(m_tray, &QCheckBox::toggled, this, changed);
    connect(m_tray, &QCheckBox::toggled, this, &DictateAnywherePanel::updateStartInTray);
    connect(m_startInTray, &QCheckBox::toggled, this, changed);
}

void DictateAnywherePanel::setSettings(const AnywhereSettings& s) {
    m_updating = true;
    m_shortcut->setKeySequence(QKeySequence::fromString(s.shortcut, QKeySequence::PortableText));
    m_mode->setCurrentIndex(s.pushToTalk ? 1 : 0);
    m_type->setChecked(s.typeText);
    m_insertion->setCurrentIndex(int(s.insertion));
    m_newline->setCurrentIndex(int(s.newline));
    m_indicator->setChecked(s.showIndicator);
    m_tray->setChecked(s.keepInTray);
    m_startInTray->setChecked(s.startInTray);
    updateStartInTray();
    m_updating = false;
}

AnywhereSettings DictateAnywherePanel::settings() const {
    AnywhereSettings s;
    s.shortcut = m_shortcut->keySequence().toString(QKeySequence::PortableText);
    s.pushToTalk = m_mode->currentIndex() == 1;
    s.typeText = m_type->isChecked();
    s.insertion = InsertionMode(m_insertion->currentIndex());
    s.newline = NewlineMode(m_newline->currentIndex());
    s.showIndicator = m_indicator->isChecked();
    s.keepInTray = m_tray->isChecked();
    s.startInTray = m_startInTray->isChecked();
    return s;
}

void DictateAnywherePanel::setTrayAvailable(bool available, const QString& why) {
    m_tray->setEnabled(available);
    m_tray->setToolTip(available ? tr("Closing the window hides it; the shortcut keeps working. The tray icon's "
                                      "menu shows the window again or quits.")
                                 : why);
    m_trayUnavailable->setText(available ? QString() : tr("Unavailable: %1").arg(why));
    m_trayUnavailable->setVisible(!available);
    updateStartInTray();
}

// "Start hidden in the tray" goes with "Keep running in the tray", where the desktop has a tray.
void DictateAnywherePanel::updateStartInTray() {
    m_startInTray->setEnabled(m_tray->isEnabled() && m_tray->isChecked());
}

bool DictateAnywherePanel::trayAvailable() const { return m_tray->isEnabled(); }

void DictateAnywherePanel::setIndicatorAvailable(bool available, const QString& why) {
    m_indicator->setEnabled(available);
    m_indicator->setToolTip(available ? m_indicatorTip : tr("Unavailable: %1").arg(why));
}

void DictateAnywherePanel::setStatus(const QString& shortcut, const QString& typing) {
    m_status->setText(tr("Shortcut: %1\nTyping: %2").arg(shortcut, typing));
}

} // namespace hearsay::ui
