// The dictation's vocabulary (words and names always in the decoder's prompt), spoken commands
// on or off, and replacement rules (applied to committed text before it is shown, journaled or
// typed), edited as text: one
// word or rule a line, in the formats of core/transcript/replacement_rules.h. OK is refused, with
// the line that is wrong, while a rule does not parse.
#pragma once

#include <QDialog>

class QCheckBox;
class QLabel;
class QPlainTextEdit;

namespace hearsay::ui {

class VocabularyDialog : public QDialog {
    Q_OBJECT
public:
    VocabularyDialog(const QString& vocabulary, const QString& replacements, bool spokenCommands, QWidget* parent = nullptr);

    QString vocabulary() const;
    QString replacements() const;
    bool spokenCommands() const;

    void accept() override;

private:
    QPlainTextEdit* m_vocabulary = nullptr;
    QPlainTextEdit* m_replacements = nullptr;
    QCheckBox* m_spokenCommands = nullptr;
    QLabel* m_problem = nullptr;
};

} // namespace hearsay::ui
