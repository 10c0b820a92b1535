// Main window layout and actions (see main_window.h).
#include "ui/main_window.h"

#include "core/model/whisper_model.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QStatusBar>

namespace hearsay::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Hearsay"));
    resize(960, 600);

    m_transcript = new QPlainTextEdit(this);
    m_transcript->setReadOnly(true);
    m_transcript->setPlaceholderText(tr("The transcript appears here. Open a model to begin (File > Open model)."));
    setCentralWidget(m_transcript);

    auto* dock = new QDockWidget(tr("Model and caches"), this);
    dock->setObjectName("modelDock");
    m_modelInfo = new QLabel(tr("No model loaded."), dock);
    m_modelInfo->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_modelInfo->setMargin(8);
    m_modelInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    dock->setWidget(m_modelInfo);
    addDockWidget(Qt::RightDockWidgetArea, dock);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("Open &model..."), this, &MainWindow::openModel);
    open->setShortcut(QKeySequence::Open);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    statusBar()->showMessage(tr("Ready"));
}

void MainWindow::openModel() {
    QString path = QFileDialog::getExistingDirectory(this, tr("Open a Hugging Face Whisper checkpoint directory"));
    if (path.isEmpty()) return;
    auto model = WhisperModel::load(path.toStdString());
    if (!model) {
        QMessageBox::warning(this, tr("Cannot open model"), QString::fromStdString(model.message()));
        return;
    }
    const auto& c = model.value()->config();
    showModelInfo(tr("<b>%1</b><br>width %2, %3 encoder / %4 decoder layers, %5 heads<br>%6 mel bins, vocabulary %7<br>weights %8 MiB")
                      .arg(path.toHtmlEscaped())
                      .arg(c.nAudioState)
                      .arg(c.nAudioLayer)
                      .arg(c.nTextLayer)
                      .arg(c.nAudioHead)
                      .arg(c.nMels)
                      .arg(c.nVocab)
                      .arg(double(model.value()->weightBytes()) / (1 << 20), 0, 'f', 1));
    statusBar()->showMessage(tr("Model loaded"));
}

void MainWindow::showModelInfo(const QString& text) { m_modelInfo->setText(text); }

} // namespace hearsay::ui
