// File › Export: the save dialog (named after the file the rows came from, in the last export
// folder; the format from the name's extension, or from the chosen filter, which then adds it),
// the subtitle options of an SRT or VTT export, and the write itself (all or nothing).
#pragma once

#include "core/transcript/transcript_export.h"

#include <QCoreApplication>
#include <QString>

#include <optional>

class QSettings;
class QWidget;

namespace hearsay::ui {

struct ExportChoice {
    QString path;
    ExportFormat format = ExportFormat::Txt;
    SubtitleOptions subtitles;
};

class TranscriptExportDialog {
    Q_DECLARE_TR_FUNCTIONS(TranscriptExportDialog)
public:
    // Asks where and how to export `transcript`; none when the user cancelled a dialog. The
    // folder is remembered in `settings` (session/exportFolder), the subtitle choices too.
    static std::optional<ExportChoice> ask(const Transcript& transcript, QSettings& settings, QWidget* parent);
    // Writes `transcript` to `path` through a temporary file; the reason when it could not.
    static std::optional<QString> write(const QString& path, const Transcript& transcript, ExportFormat format,
                                        const SubtitleOptions& subtitles);
};

} // namespace hearsay::ui
