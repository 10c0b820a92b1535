// The vocabulary and replacements dialog (see vocabulary_dialog.h).
#include "ui/vocabulary_dialog.h"

#include "core/transcript/replacement_rules.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace hearsay::ui {

VocabularyDialog::VocabularyDialog(const QString& vocabulary, const QString& replacements, bool spokenCommands,
                                   QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Vocabulary and replacements"));
    auto* layout = new QVBoxLayout(this);
    auto* vocabularyLabel = new QLabel(tr("&Vocabulary: words and names you use, one a line. The model sees them "
                                          "before every window and spells them as written."),
                                       this);
    vocabularyLabel->setWordWrap(true);
    m_vocabulary = new QPlainTextEdit(vocabulary, this);
    m_vocabulary->setObjectName("vocabulary");
    m_vocabulary->setPlaceholderText(tr("Hearsay\nPortAudio\nDr. Nguyen"));
    vocabularyLabel->setBuddy(m_vocabulary);
    auto* rulesLabel = new QLabel(tr("&Replacements, applied to final text before it is shown, saved or typed, one "
                                     "a line: \"hear say => Hearsay\" (a word or phrase, any case) or "
                                     "\"re:PATTERN => TEXT\" (a regular expression; $1 is its first group, \\n a "
                                     "new line). Lines starting with # are comments."),
                                  this);
    rulesLabel->setWordWrap(true);
    m_replacements = new QPlainTextEdit(replacements, this);
    m_replacements->setObjectName("replacements");
    m_replacements->setPlaceholderText(tr("hear say => Hearsay\nnew paragraph => \\n\\n"));
    rulesLabel->setBuddy(m_replacements);
    m_spokenCommands = new QCheckBox(tr("&Spoken commands: \"comma\", \"period\", \"question mark\", \"new line\", \"new "
                                        "paragraph\" … become the characters (English; German when the language is German)"),
                                     this);
    m_spokenCommands->setObjectName("spokenCommands");
    m_spokenCommands->setChecked(spokenCommands);
    m_problem = new QLabel(this);
    m_problem->setObjectName("replacementsProblem");
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet("color: #b00020");
    m_problem->hide();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &VocabularyDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &VocabularyDialog::reject);
    layout->addWidget(vocabularyLabel);
    layout->addWidget(m_vocabulary, 1);
    layout->addWidget(m_spokenCommands);
    layout->addWidget(rulesLabel);
    layout->addWidget(m_replacements, 1);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    resize(520, 480);
}

QString VocabularyDialog::vocabulary() const { return m_vocabulary->toPlainText(); }
QString VocabularyDialog::replacements() const { return m_replacements->toPlainText(); }
bool VocabularyDialog::spokenCommands() const { return m_spokenCommands->isChecked(); }

void VocabularyDialog::accept() {
    const auto rules = ReplacementRules::parse(m_replacements->toPlainText().toStdString());
    if (!rules) {
        m_problem->setText(QString::fromStdString(rules.message()));
        m_problem->show();
        return;
    }
    QDialog::accept();
}

} // namespace hearsay::ui
