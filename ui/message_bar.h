// A message strip above the transcript for errors and notices: it never blocks (unlike a modal
// box, a long transcription goes on behind it) and stays until closed or replaced. A message may
// offer one way out as a button ("Use the CPU backend"); pressing it closes the strip.
#pragma once

#include <QFrame>

#include <functional>

class QLabel;
class QPushButton;
class QToolButton;

namespace hearsay::ui {

class MessageBar : public QFrame {
    Q_OBJECT
public:
    enum class Kind { Information, Warning, Error };

    explicit MessageBar(QWidget* parent = nullptr);

    void showMessage(Kind kind, const QString& text);
    // The same with a button labelled `actionText` that runs `action` (after closing the strip).
    void showMessage(Kind kind, const QString& text, const QString& actionText, std::function<void()> action);
    QString text() const;
    Kind kind() const { return m_kind; }
    // The offered action's button (hidden when the message offers none).
    QPushButton* actionButton() const { return m_action; }

private:
    QLabel* m_icon = nullptr;
    QLabel* m_text = nullptr;
    QPushButton* m_action = nullptr;
    std::function<void()> m_onAction;
    QToolButton* m_close = nullptr;
    Kind m_kind = Kind::Information;
};

} // namespace hearsay::ui
