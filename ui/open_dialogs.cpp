// The open dialogs (see open_dialogs.h).
#include "ui/open_dialogs.h"

#include <QFileDialog>
#include <QFileInfo>

namespace hearsay::ui {

QString OpenDialogs::askModelFile(QWidget* parent, const QString& folder) {
    return QFileDialog::getOpenFileName(parent, tr("Open a Whisper model"), folder,
                                        tr("Whisper models (*.bin config.json *.safetensors);;All files (*)"));
}

QString OpenDialogs::askModelDirectory(QWidget* parent, const QString& folder) {
    return QFileDialog::getExistingDirectory(parent, tr("Open a Whisper model directory (Hugging Face or CTranslate2)"),
                                             folder);
}

QString OpenDialogs::askAudio(QWidget* parent, const QString& folder) {
    return QFileDialog::getOpenFileName(parent, tr("Open audio or video"), folder,
                                        tr("Audio and video (*.wav *.flac *.ogg *.oga *.opus *.mp3 *.m4a *.aac *.wma "
                                           "*.mp4 *.mkv *.webm *.mov *.avi);;All files (*)"));
}

bool OpenDialogs::looksLikeModel(const QString& path) {
    const QFileInfo info(path);
    if (info.isDir()) return true;
    const QString name = info.fileName().toLower();
    return name.endsWith(".bin") || name == "config.json" || name.endsWith(".safetensors") ||
           name.endsWith(".safetensors.index.json");
}

} // namespace hearsay::ui
