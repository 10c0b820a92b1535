// Subtitle options for an export (see subtitle_options_dialog.h).
#include "ui/subtitle_options_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace hearsay::ui {

namespace {
constexpr int kMaxLineWidth = 10000;  // the CLI's limits
constexpr int kMaxLineCount = 1000;
} // namespace

SubtitleOptionsDialog::SubtitleOptionsDialog(const SubtitleOptions& initial, QWidget* parent)
    : QDialog(parent), m_width(new QSpinBox(this)), m_count(new QSpinBox(this)), m_highlight(new QCheckBox(this)) {
    setWindowTitle(tr("Subtitle lines"));
    setObjectName("subtitleOptionsDialog");
    m_width->setObjectName("maxLineWidth");
    m_width->setRange(0, kMaxLineWidth);
    m_width->setSpecialValueText(tr("no limit (a segment per cue)"));
    m_width->setSuffix(tr(" characters"));
    m_width->setValue(initial.maxLineWidth);
    m_count->setObjectName("maxLineCount");
    m_count->setRange(0, kMaxLineCount);
    m_count->setSpecialValueText(tr("no limit"));
    m_count->setSuffix(tr(" lines"));
    m_count->setValue(initial.maxLineCount);
    m_highlight->setObjectName("highlightWords");
    m_highlight->setText(tr("One cue per word, the word underlined as it is spoken"));
    m_highlight->setChecked(initial.highlightWords);

    auto* intro = new QLabel(tr("The transcript has word timings: subtitle lines can be cut by width, and cues by "
                                "their number of lines (a pause of more than 3 s starts a new cue)."),
                             this);
    intro->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("Line width"), m_width);
    form->addRow(tr("Lines per cue"), m_count);
    form->addRow(QString(), m_highlight);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

SubtitleOptions SubtitleOptionsDialog::options() const {
    return SubtitleOptions{m_width->value(), m_count->value(), m_highlight->isChecked()};
}

SubtitleOptions SubtitleOptionsDialog::load(const QSettings& settings) {
    SubtitleOptions options;
    const int width = settings.value("export/maxLineWidth", 0).toInt();
    const int count = settings.value("export/maxLineCount", 0).toInt();
    options.maxLineWidth = width >= 0 && width <= kMaxLineWidth ? width : 0;
    options.maxLineCount = count >= 0 && count <= kMaxLineCount ? count : 0;
    options.highlightWords = settings.value("export/highlightWords", false).toBool();
    return options;
}

void SubtitleOptionsDialog::save(QSettings& settings, const SubtitleOptions& options) {
    settings.setValue("export/maxLineWidth", options.maxLineWidth);
    settings.setValue("export/maxLineCount", options.maxLineCount);
    settings.setValue("export/highlightWords", options.highlightWords);
}

std::optional<SubtitleOptions> SubtitleOptionsDialog::ask(const Transcript& transcript, ExportFormat format,
                                                          QSettings& settings, QWidget* parent) {
    const bool hasWords = std::any_of(transcript.segments.begin(), transcript.segments.end(),
                                      [](const Segment& s) { return !s.words.empty(); });
    if ((format != ExportFormat::Srt && format != ExportFormat::Vtt) || !hasWords) return SubtitleOptions{};
    SubtitleOptionsDialog dialog(load(settings), parent);
    if (dialog.exec() != QDialog::Accepted) return std::nullopt;
    save(settings, dialog.options());
    return dialog.options();
}

} // namespace hearsay::ui
