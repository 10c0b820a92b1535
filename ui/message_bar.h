// A message strip above the transcript for errors and notices: it never blocks (unlike a modal
// box, a long transcription goes on behind it) and stays until closed or replaced.
#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

namespace hearsay::ui {

class MessageBar : public QFrame {
    Q_OBJECT
public:
    enum class Kind { Information, Warning, Error };

    explicit MessageBar(QWidget* parent = nullptr);

    void showMessage(Kind kind, const QString& text);
    QString text() const;
    Kind kind() const { return m_kind; }

private:
    QLabel* m_icon = nullptr;
    QLabel* m_text = nullptr;
    QToolButton* m_close = nullptr;
    Kind m_kind = Kind::Information;
};

} // namespace hearsay::ui
