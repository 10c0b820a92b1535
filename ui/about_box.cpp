// The About box (see about_box.h).
#include "ui/about_box.h"

#include <QApplication>
#include <QIcon>
#include <QMessageBox>

namespace hearsay::ui {

QString AboutBox::text(const QString& modelPath, const QString& backend) {
    const QString version = QApplication::applicationVersion().isEmpty() ? QStringLiteral("0.1.0")
                                                                          : QApplication::applicationVersion();
    return tr("<h3>Hearsay %1</h3><p>Live speech recognition with Whisper models, with the decoder's key/value "
              "caches in view.</p><p><b>Model:</b> %2<br><b>Backend:</b> %3</p>"
              "<p>Hearsay is MIT-licensed. It uses Qt 6 (LGPL-3.0), PortAudio (MIT), libsndfile (LGPL-2.1), "
              "libsamplerate (BSD-2-Clause), KissFFT (BSD-3-Clause), OpenBLAS (BSD-3-Clause), zlib (zlib), FFmpeg "
              "(LGPL-2.1 or later, as the system builds it), the Silero VAD weights (MIT), and with CUDA NVIDIA's "
              "CUDA runtime and cuBLAS (NVIDIA's license). The Whisper model weights are MIT-licensed (OpenAI).</p>")
        .arg(version, !modelPath.isEmpty() ? modelPath.toHtmlEscaped() : tr("none loaded"),
             backend.isEmpty() ? tr("none yet (chosen when a model is loaded)") : backend.toHtmlEscaped());
}

void AboutBox::exec(const QString& text, const QIcon& icon, QWidget* parent) {
    QMessageBox box(parent);
    box.setWindowTitle(tr("About Hearsay"));
    box.setIconPixmap(icon.pixmap(64, 64));
    box.setText(text);
    box.setStandardButtons(QMessageBox::Ok);
    box.exec();
}

} // namespace hearsay::ui
