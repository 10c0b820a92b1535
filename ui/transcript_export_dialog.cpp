// The export dialogs and the write (see transcript_export_dialog.h).
#include "ui/transcript_export_dialog.h"

#include "ui/subtitle_options_dialog.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QSaveFile>
#include <QSettings>
#include <QStringList>

namespace hearsay::ui {

std::optional<ExportChoice> TranscriptExportDialog::ask(const Transcript& transcript, QSettings& settings,
                                                        QWidget* parent) {
    const QString txt = tr("Plain text (*.txt)"), srt = tr("SubRip subtitles (*.srt)"), vtt = tr("WebVTT subtitles (*.vtt)"),
                  json = tr("JSON with timings and statistics (*.json)");
    QString filter = txt;
    // Named after the file the rows came from (a file that failed to start did not replace them).
    const QString base =
        transcript.source.empty() ? tr("transcript") : QFileInfo(QString::fromStdString(transcript.source)).completeBaseName();
    QString path = QFileDialog::getSaveFileName(parent, tr("Export transcript"),
                                                QFileInfo(settings.value("session/exportFolder").toString(), base).filePath(),
                                                QStringList{txt, srt, vtt, json}.join(";;"), &filter);
    if (path.isEmpty()) return std::nullopt;
    // The file's extension decides; without one, the chosen filter does (and adds it).
    auto format = parseExportFormat(QFileInfo(path).suffix().toLower().toStdString());
    if (!format) {
        const ExportFormat chosen = filter == srt ? ExportFormat::Srt : filter == vtt ? ExportFormat::Vtt
                                  : filter == json ? ExportFormat::Json : ExportFormat::Txt;
        path += QString(".") + fileExtension(chosen);
        format = chosen;
    }
    settings.setValue("session/exportFolder", QFileInfo(path).absolutePath());
    const auto subtitles = SubtitleOptionsDialog::ask(transcript, format.value(), settings, parent);
    if (!subtitles) return std::nullopt;
    return ExportChoice{path, format.value(), *subtitles};
}

std::optional<QString> TranscriptExportDialog::write(const QString& path, const Transcript& transcript,
                                                     ExportFormat format, const SubtitleOptions& subtitles) {
    const std::string content = exportTranscript(transcript, format, subtitles);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(content.data(), qint64(content.size())) != qint64(content.size()) ||
        !file.commit())
        return file.errorString();
    return std::nullopt;
}

} // namespace hearsay::ui
