// The subtitle choices of an SRT or VTT export with word timings (the CLI's --max-line-width,
// --max-line-count, --highlight-words): characters per line, lines per cue, and one cue per word
// with that word underlined. The cues themselves are core/transcript's (subtitle_cues.h).
#pragma once

#include "core/transcript/transcript_export.h"

#include <QDialog>

#include <optional>

class QCheckBox;
class QSettings;
class QSpinBox;

namespace hearsay::ui {

class SubtitleOptionsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SubtitleOptionsDialog(const SubtitleOptions& initial, QWidget* parent = nullptr);
    SubtitleOptions options() const;

    // The last choices (QSettings keys export/maxLineWidth, export/maxLineCount,
    // export/highlightWords); out-of-range values read as "no limit".
    static SubtitleOptions load(const QSettings& settings);
    static void save(QSettings& settings, const SubtitleOptions& options);
    // The options for exporting `transcript` as `format`: asked for (and saved) when the format
    // is SRT or VTT and the transcript has words, the defaults otherwise; none when cancelled.
    static std::optional<SubtitleOptions> ask(const Transcript& transcript, ExportFormat format, QSettings& settings,
                                              QWidget* parent);

private:
    QSpinBox* m_width;
    QSpinBox* m_count;
    QCheckBox* m_highlight;
};

} // namespace hearsay::ui
