// Main window layout, actions and the GUI side of the worker protocol (see main_window.h).
#include "ui/main_window.h"

#include "ui/cache_panel.h"
#include "ui/message_bar.h"
#include "ui/model_manager_dialog.h"
#include "ui/settings_panel.h"
#include "ui/transcript_model.h"
#include "ui/transcription_worker.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace hearsay::ui {
namespace {

constexpr int kProgressSteps = 1000;
constexpr int kMemoryPollMs = 1000;

const char* kAudioFilter =
    QT_TRANSLATE_NOOP("MainWindow", "Audio and video (*.wav *.flac *.ogg *.oga *.opus *.mp3 *.m4a *.aac *.wma *.mp4 "
                                    "*.mkv *.webm *.mov *.avi);;All files (*)");

// A dropped or given path that names a model rather than audio.
bool looksLikeModel(const QString& path) {
    const QFileInfo info(path);
    if (info.isDir()) return true;
    const QString name = info.fileName().toLower();
    return name.endsWith(".bin") || name == "config.json" || name.endsWith(".safetensors") ||
           name.endsWith(".safetensors.index.json");
}

} // namespace

MainWindow::MainWindow(std::unique_ptr<QSettings> settings, QWidget* parent)
    : QMainWindow(parent), m_settings(settings ? std::move(settings) : std::make_unique<QSettings>()) {
    setWindowTitle(tr("Hearsay"));
    setAcceptDrops(true);
    resize(1100, 700);

    // Centre: message strip above the transcript (or, while empty, a hint).
    m_transcript = new TranscriptModel(this);
    m_view = new QTableView(this);
    m_view->setObjectName("transcriptView");
    m_view->setModel(m_transcript);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setWordWrap(true);
    m_view->setAlternatingRowColors(true);
    m_view->setShowGrid(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(TranscriptModel::StartColumn, QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(TranscriptModel::EndColumn, QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);

    auto* hint = new QLabel(tr("<p style='font-size:large'>No transcript yet</p>"
                               "<p>Open a model (<b>File › Open model</b>), then an audio or video file "
                               "(<b>File › Open audio</b>), or drop either onto this window.</p>"),
                            this);
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    hint->setEnabled(false);

    m_centre = new QStackedWidget(this);
    m_centre->addWidget(hint);
    m_centre->addWidget(m_view);
    m_messageBar = new MessageBar(this);
    auto* centre = new QWidget(this);
    auto* layout = new QVBoxLayout(centre);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->addWidget(m_messageBar);
    layout->addWidget(m_centre, 1);
    setCentralWidget(centre);
    auto showTable = [this] { m_centre->setCurrentIndex(m_transcript->rowCount() > 0 ? 1 : 0); };
    connect(m_transcript, &QAbstractItemModel::rowsInserted, this, showTable);
    connect(m_transcript, &QAbstractItemModel::modelReset, this, showTable);

    // Status bar: what happens, progress and Cancel.
    m_statusText = new QLabel(tr("Ready"), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, kProgressSteps);
    m_progress->setMaximumWidth(220);
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName("cancelButton");
    m_cancel->hide();
    statusBar()->addWidget(m_statusText, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelTranscription);

    m_engineSettings = EngineSettings::load(*m_settings);
    createDocks();
    createActions();

    // The engine's thread. The worker is deleted there once the event loop has stopped.
    m_thread.reset(new QThread);
    m_thread->setObjectName("hearsay-engine");
    m_worker = new TranscriptionWorker;
    m_worker->moveToThread(m_thread.get());
    connect(m_thread.get(), &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &TranscriptionWorker::modelLoading, this, &MainWindow::onModelLoading);
    connect(m_worker, &TranscriptionWorker::modelLoaded, this, &MainWindow::onModelLoaded);
    connect(m_worker, &TranscriptionWorker::modelFailed, this, &MainWindow::onModelFailed);
    connect(m_worker, &TranscriptionWorker::transcriptionStarted, this, &MainWindow::onTranscriptionStarted);
    connect(m_worker, &TranscriptionWorker::progressChanged, this, &MainWindow::onProgress);
    connect(m_worker, &TranscriptionWorker::segmentsReady, this, &MainWindow::onSegments);
    connect(m_worker, &TranscriptionWorker::transcriptionFinished, this, &MainWindow::onTranscriptionFinished);
    connect(m_worker, &TranscriptionWorker::transcriptionFailed, this, &MainWindow::onTranscriptionFailed);
    connect(m_worker, &TranscriptionWorker::metricsUpdated, this, &MainWindow::onMetrics);
    connect(m_worker, &TranscriptionWorker::warning, this, &MainWindow::onWarning);
    m_thread->start();

    // The device's free memory changes with other programs too: polled here, between the
    // worker's reports (the worker answers from this thread without waiting for a running job).
    auto* memoryPoll = new QTimer(this);
    connect(memoryPoll, &QTimer::timeout, this, [this] {
        const DeviceMemory memory = m_worker->deviceMemory();
        if (memory.known) m_cachePanel->setDeviceMemory(memory);
    });
    memoryPoll->start(kMemoryPollMs);

    restoreGeometry(m_settings->value("window/geometry").toByteArray());
    restoreState(m_settings->value("window/state").toByteArray());
    setState(State::Idle);
}

MainWindow::~MainWindow() {
    // A running transcription stops at its next decoder step; the thread's deleter then waits for it.
    if (m_worker) m_worker->requestCancel();
    m_thread.reset();
}

void MainWindow::createDocks() {
    m_settingsPanel = new SettingsPanel(this);
    m_settingsPanel->setSettings(m_engineSettings);
    auto* settingsDock = new QDockWidget(tr("Settings"), this);
    settingsDock->setObjectName("settingsDock");
    settingsDock->setWidget(m_settingsPanel);
    addDockWidget(Qt::LeftDockWidgetArea, settingsDock);
    connect(m_settingsPanel, &SettingsPanel::settingsChanged, this, &MainWindow::applySettings);

    m_cachePanel = new CachePanel(this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_cachePanel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* cacheDock = new QDockWidget(tr("Model and caches"), this);
    cacheDock->setObjectName("cacheDock");
    cacheDock->setWidget(scroll);
    addDockWidget(Qt::RightDockWidgetArea, cacheDock);
    resizeDocks({settingsDock, cacheDock}, {280, 320}, Qt::Horizontal);
}

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    m_openModel = file->addAction(tr("Open &model…"), this, &MainWindow::chooseModel);
    m_openModel->setShortcut(QKeySequence(tr("Ctrl+M")));
    m_openModel->setStatusTip(tr("Open a whisper.cpp ggml .bin file, the model.bin of a CTranslate2 (faster-whisper) model, or the config.json of a Hugging Face checkpoint"));
    m_openModelDirectory = file->addAction(tr("Open model &directory…"), this, &MainWindow::chooseModelDirectory);
    m_openModelDirectory->setStatusTip(tr("Open a Hugging Face or CTranslate2 (faster-whisper) Whisper model directory"));
    QAction* models = file->addAction(tr("Mo&dels…"), this, [this] { showModelManager(); });
    models->setStatusTip(tr("Download a Whisper model, or open one already on this computer"));
    m_openAudio = file->addAction(tr("Open &audio…"), this, &MainWindow::chooseAudio);
    m_openAudio->setShortcut(QKeySequence::Open);
    m_openAudio->setStatusTip(tr("Transcribe a WAV, FLAC, OGG or MP3 file, or a video through FFmpeg"));
    file->addSeparator();
    m_export = file->addAction(tr("&Export transcript…"), this, &MainWindow::chooseExport);
    m_export->setShortcut(QKeySequence(tr("Ctrl+E")));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    m_copy = edit->addAction(tr("&Copy"), this, &MainWindow::copySelection);
    m_copy->setShortcut(QKeySequence::Copy);
    m_copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_copyAll = edit->addAction(tr("Copy &all text"), this, &MainWindow::copyAll);
    QAction* selectAll = edit->addAction(tr("Select &all"), m_view, &QAbstractItemView::selectAll);
    selectAll->setShortcut(QKeySequence::SelectAll);
    edit->addSeparator();
    m_clear = edit->addAction(tr("C&lear transcript"), this, &MainWindow::clearTranscript);
    m_view->addAction(m_copy);
    m_view->addAction(m_copyAll);
    m_view->addAction(selectAll);

    QMenu* transcription = menuBar()->addMenu(tr("&Transcription"));
    m_cancelAction = transcription->addAction(tr("&Cancel"), this, &MainWindow::cancelTranscription);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    transcription->addSeparator();
    // Live dictation (microphone -> resampler -> ring buffer -> streaming session, LocalAgreement
    // commits) is a later milestone of the engine. Its entry point belongs here; until the
    // streaming session exists the action is shown disabled rather than imitated.
    QAction* dictation = transcription->addAction(tr("Start &dictation (microphone)"));
    dictation->setEnabled(false);
    dictation->setStatusTip(tr("Live dictation arrives with the streaming engine; files can be transcribed now"));

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
}

void MainWindow::setState(State state) {
    m_state = state;
    const bool idle = state == State::Idle;
    m_openModel->setEnabled(idle);
    m_openModelDirectory->setEnabled(idle);
    m_openAudio->setEnabled(idle && m_hasModel);
    m_export->setEnabled(state != State::Transcribing && m_transcript->rowCount() > 0);
    m_clear->setEnabled(state != State::Transcribing);
    m_cancelAction->setEnabled(state == State::Transcribing);
    m_cancel->setVisible(state == State::Transcribing);
    m_cancel->setEnabled(state == State::Transcribing);
    m_progress->setVisible(state != State::Idle);
    if (state == State::LoadingModel) m_progress->setRange(0, 0);  // busy indicator
    else m_progress->setRange(0, kProgressSteps);
}

void MainWindow::showError(const QString& text) {
    m_messageBar->showMessage(MessageBar::Kind::Error, text);
    m_statusText->setText(tr("Error"));
}

// ---- actions ------------------------------------------------------------------------------------

void MainWindow::chooseModel() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a Whisper model"), m_settings->value("session/modelFolder").toString(),
        tr("Whisper models (*.bin config.json *.safetensors);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
}

void MainWindow::chooseModelDirectory() {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open a Whisper model directory (Hugging Face or CTranslate2)"),
                                                           m_settings->value("session/modelFolder").toString());
    if (!path.isEmpty()) openModel(path);
}

void MainWindow::chooseAudio() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open audio or video"),
                                                      m_settings->value("session/audioFolder").toString(),
                                                      tr(kAudioFilter));
    if (!path.isEmpty()) openAudio(path);
}

void MainWindow::chooseExport() {
    const QString txt = tr("Plain text (*.txt)"), srt = tr("SubRip subtitles (*.srt)"), vtt = tr("WebVTT subtitles (*.vtt)"),
                  json = tr("JSON with timings and statistics (*.json)");
    QString filter = txt;
    // Named after the file the rows came from (a file that failed to start did not replace them).
    const std::string source = m_transcript->transcript().source;
    const QString base =
        source.empty() ? tr("transcript") : QFileInfo(QString::fromStdString(source)).completeBaseName();
    QString path = QFileDialog::getSaveFileName(this, tr("Export transcript"),
                                                QFileInfo(m_settings->value("session/exportFolder").toString(), base).filePath(),
                                                QStringList{txt, srt, vtt, json}.join(";;"), &filter);
    if (path.isEmpty()) return;
    // The file's extension decides; without one, the chosen filter does (and adds it).
    auto format = parseExportFormat(QFileInfo(path).suffix().toLower().toStdString());
    if (!format) {
        const ExportFormat chosen = filter == srt ? ExportFormat::Srt : filter == vtt ? ExportFormat::Vtt
                                  : filter == json ? ExportFormat::Json : ExportFormat::Txt;
        path += QString(".") + fileExtension(chosen);
        format = chosen;
    }
    m_settings->setValue("session/exportFolder", QFileInfo(path).absolutePath());
    exportTranscript(path, format.value());
}

bool MainWindow::exportTranscript(const QString& path, ExportFormat format) {
    const std::string content = hearsay::exportTranscript(m_transcript->transcript(), format);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(content.data(), qint64(content.size())) != qint64(content.size()) ||
        !file.commit()) {
        showError(tr("Cannot write %1: %2").arg(path, file.errorString()));
        return false;
    }
    m_statusText->setText(tr("Exported %1").arg(QFileInfo(path).fileName()));
    return true;
}

void MainWindow::copySelection() {
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        copyAll();
        return;
    }
    QApplication::clipboard()->setText(m_transcript->plainText(rows));
}

void MainWindow::copyAll() {
    QApplication::clipboard()->setText(QString::fromStdString(toTxt(m_transcript->transcript())));
}

void MainWindow::clearTranscript() {
    if (m_state == State::Transcribing) return;
    m_transcript->clear();
    setState(m_state);
}

void MainWindow::applySettings(const EngineSettings& settings) {
    m_engineSettings = settings;
    settings.save(*m_settings);
    // The switches (caches, step graphs) take effect at the engine's next decoder step, even in the middle of a window;
    // the rest is applied by the worker when it is next free (queued behind a running job).
    m_worker->requestCacheSwitches(settings.selfCache, settings.crossCache);
    m_worker->requestStepGraphs(settings.stepGraphs);
    if (m_hasModel)
        QMetaObject::invokeMethod(m_worker, "applySettings", Qt::QueuedConnection,
                                  Q_ARG(hearsay::ui::EngineSettings, settings));
}

void MainWindow::reopenLastModel() {
    const QString path = m_settings->value("session/lastModel").toString();
    if (!path.isEmpty() && QFileInfo::exists(path)) openModel(path);
}

void MainWindow::showModelManager(const QString& introduction) {
    auto* dialog = new ModelManagerDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setIntroduction(introduction);
    dialog->setUserFolders(m_settings->value("models/folders").toStringList());
    connect(dialog, &ModelManagerDialog::foldersChanged, this,
            [this](const QStringList& folders) { m_settings->setValue("models/folders", folders); });
    if (!introduction.isEmpty()) dialog->selectEntry("tiny.en", ModelFormat::CTranslate2);
    connect(dialog, &ModelManagerDialog::modelChosen, this, &MainWindow::openModel);
    dialog->open();
}

void MainWindow::openModel(const QString& path) {
    if (isBusy()) {
        m_messageBar->showMessage(MessageBar::Kind::Warning, tr("Wait for the current job to end (or cancel it) first."));
        return;
    }
    setState(State::LoadingModel);
    m_loadingModelPath = path;
    QMetaObject::invokeMethod(m_worker, "loadModel", Qt::QueuedConnection, Q_ARG(QString, path),
                              Q_ARG(hearsay::ui::EngineSettings, m_engineSettings));
}

void MainWindow::openAudio(const QString& path) {
    if (isBusy()) {
        m_messageBar->showMessage(MessageBar::Kind::Warning, tr("Wait for the current job to end (or cancel it) first."));
        return;
    }
    if (!m_hasModel) {
        showError(tr("Open a model before transcribing %1 (File › Open model).").arg(QFileInfo(path).fileName()));
        return;
    }
    m_settings->setValue("session/audioFolder", QFileInfo(path).absolutePath());
    startJob(path, 0.0);
}

void MainWindow::startJob(const QString& path, double startSeconds) {
    m_messageBar->hide();
    // The transcript shown stays until the new job has its audio (see onTranscriptionStarted):
    // a job that cannot start loses nothing.
    m_audio = {};
    m_audio.path = path;
    m_jobStarted = false;
    m_jobReachedSeconds = startSeconds;
    m_statusText->setText(tr("Opening %1…").arg(QFileInfo(path).fileName()));
    m_progress->setValue(0);
    m_worker->clearCancel();
    setState(State::Transcribing);
    EngineSettings settings = m_engineSettings;
    if (startSeconds > 0.0) {
        // A continuation is prompted with the end of the text kept, as the next window of an
        // unbroken run would be (the engine keeps the last n_text_ctx/2 - 1 tokens of it).
        QString kept;
        for (int r = m_transcript->rowCount() - 1; r >= 0 && kept.size() < 1000; --r)
            kept.prepend(QString::fromStdString(m_transcript->segment(r).text));
        settings.initialPrompt = kept.right(1000);
    }
    QMetaObject::invokeMethod(m_worker, "transcribeFile", Qt::QueuedConnection, Q_ARG(QString, path),
                              Q_ARG(hearsay::ui::EngineSettings, settings), Q_ARG(double, startSeconds));
}

void MainWindow::useCpuBackend() {
    EngineSettings settings = m_settingsPanel->settings();
    settings.backend = "cpu";
    m_settingsPanel->setSettings(settings);
    applySettings(settings);  // saved, and applied by the worker before any job queued after it
}

void MainWindow::offerCpuBackend(MessageBar::Kind kind, const QString& text, std::function<void()> retry) {
    m_messageBar->showMessage(kind, text, tr("Use the CPU backend"), [this, retry = std::move(retry)] {
        if (isBusy()) {
            m_messageBar->showMessage(MessageBar::Kind::Warning,
                                      tr("Wait for the current job to end (or cancel it) first."));
            return;
        }
        useCpuBackend();
        if (retry) retry();
    });
}

void MainWindow::cancelTranscription() {
    if (m_state != State::Transcribing) return;
    m_worker->requestCancel();
    m_cancel->setEnabled(false);
    m_statusText->setText(tr("Cancelling…"));
}

// ---- worker reports ------------------------------------------------------------------------------

void MainWindow::onModelLoading(const QString& path) {
    m_statusText->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
}

void MainWindow::onModelLoaded(const ModelSummary& model) {
    m_hasModel = true;
    m_modelPath = model.path;
    m_settings->setValue("session/lastModel", model.path);
    m_settings->setValue("session/modelFolder", QFileInfo(model.path).absolutePath());
    m_cachePanel->setModel(model);
    m_settingsPanel->setModel(model);
    m_engineSettings = m_settingsPanel->settings();
    m_messageBar->hide();
    setWindowTitle(tr("Hearsay — %1").arg(QFileInfo(model.path).fileName()));
    m_statusText->setText(tr("Model loaded: %1").arg(QFileInfo(model.path).fileName()));
    setState(State::Idle);
    emit modelLoadFinished(true);
}

void MainWindow::onModelFailed(const QString& message, bool backendFailed) {
    const QString text = m_hasModel ? tr("%1\nThe previous model stays loaded.").arg(message) : message;
    setState(State::Idle);
    if (backendFailed && m_engineSettings.backend != "cpu") {
        offerCpuBackend(MessageBar::Kind::Error, tr("%1\nThe CPU backend can run this model (more slowly).").arg(text),
                        [this, path = m_loadingModelPath] { openModel(path); });
        m_statusText->setText(tr("Error"));
    } else {
        showError(text);
    }
    emit modelLoadFinished(false);
}

void MainWindow::onTranscriptionStarted(const AudioSummary& audio) {
    m_audio = audio;
    m_jobStarted = true;
    m_jobReachedSeconds = audio.startSeconds;
    if (audio.startSeconds > 0.0) {
        // A continuation: the segments kept stay, the new ones follow them.
        const int rows = m_transcript->rowCount();
        m_resumeIdBase = rows > 0 ? m_transcript->segment(rows - 1).id + 1 : 0;
        m_statusText->setText(tr("Continuing %1 from %2 s on the %3 backend")
                                  .arg(QFileInfo(audio.path).fileName())
                                  .arg(audio.startSeconds, 0, 'f', 1)
                                  .arg(m_engineSettings.backend.toUpper()));
        return;
    }
    m_transcript->clear();
    m_statusText->setText(tr("Transcribing %1 (%2 s, %3 Hz, %4 ch, %5)")
                              .arg(QFileInfo(audio.path).fileName())
                              .arg(audio.durationSeconds, 0, 'f', 1)
                              .arg(audio.sourceRate)
                              .arg(audio.sourceChannels)
                              .arg(audio.decoder));
}

void MainWindow::onProgress(double fraction) {
    m_jobReachedSeconds = std::max(m_jobReachedSeconds, fraction * m_audio.durationSeconds);
    m_progress->setValue(int(fraction * kProgressSteps + 0.5));
    m_progress->setFormat(tr("%1 of %2 s").arg(fraction * m_audio.durationSeconds, 0, 'f', 1).arg(m_audio.durationSeconds, 0, 'f', 1));
}

void MainWindow::onSegments(const SegmentList& segments) {
    QScrollBar* bar = m_view->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    if (m_audio.startSeconds > 0.0) {
        SegmentList numbered = segments;
        for (Segment& s : numbered) s.id += m_resumeIdBase;
        m_transcript->appendSegments(numbered);
    } else {
        m_transcript->appendSegments(segments);
    }
    if (atEnd) m_view->scrollToBottom();
}

void MainWindow::onTranscriptionFinished(const Transcript& transcript) {
    m_transcript->setRunDetails(transcript.source, transcript.language, transcript.statistics);
    const RunStatistics& s = transcript.statistics;
    m_statusText->setText(tr("Transcribed %1: %2 segments, language %3, %4 s of audio in %5 s (real-time factor %6)")
                              .arg(QFileInfo(m_audio.path).fileName())
                              .arg(m_transcript->rowCount())
                              .arg(QString::fromStdString(transcript.language))
                              .arg(s.audioSeconds, 0, 'f', 1)
                              .arg(s.wallSeconds, 0, 'f', 2)
                              .arg(s.realTimeFactor(), 0, 'f', 3));
    setState(State::Idle);
    emit transcriptionEnded(true);
}

void MainWindow::onTranscriptionFailed(const QString& message, bool cancelled, bool backendFailed) {
    // Rows on screen belong to this job only once it started; before, they are the last file's.
    if (m_jobStarted) m_transcript->setRunDetails(m_audio.path.toStdString(), {}, {});
    const QString kept = m_transcript->rowCount() > 0
                             ? tr("The %n segment(s) already transcribed are kept.", nullptr, m_transcript->rowCount())
                             : QString();
    setState(State::Idle);
    if (cancelled) {
        m_messageBar->showMessage(MessageBar::Kind::Information, (message + ". " + kept).trimmed());
        m_statusText->setText(tr("Cancelled"));
    } else if (backendFailed && m_engineSettings.backend != "cpu") {
        // Retried on the CPU: a job that had begun continues where it stopped (the end of its
        // last complete window), so nothing is transcribed twice and nothing is lost; one that
        // had not begun starts from the beginning.
        const QString path = m_audio.path;
        const double from = m_jobStarted ? m_jobReachedSeconds : 0.0;
        const QString how =
            from > 0.0 ? tr("The CPU backend can continue from %1 s (more slowly).").arg(from, 0, 'f', 1)
                       : tr("The CPU backend can transcribe %1 (more slowly).").arg(QFileInfo(path).fileName());
        offerCpuBackend(MessageBar::Kind::Error, (kept.isEmpty() ? message : message + "\n" + kept) + "\n" + how,
                        [this, path, from] { startJob(path, from); });
        m_statusText->setText(tr("Error"));
    } else {
        showError(kept.isEmpty() ? message : message + "\n" + kept);
    }
    emit transcriptionEnded(false);
}

void MainWindow::onWarning(const QString& message, bool backendFailed) {
    if (backendFailed && m_engineSettings.backend != "cpu")
        offerCpuBackend(MessageBar::Kind::Warning, message + "\n" + tr("The engine keeps its current backend for now."),
                        nullptr);
    else
        m_messageBar->showMessage(MessageBar::Kind::Warning, message);
}

void MainWindow::onMetrics(const EngineMetrics& metrics) {
    m_cachePanel->setMetrics(metrics);
    emit metricsShown(metrics);
}

// ---- window events -------------------------------------------------------------------------------

void MainWindow::closeEvent(QCloseEvent* event) {
    m_settings->setValue("window/geometry", saveGeometry());
    m_settings->setValue("window/state", saveState());
    if (m_state == State::Transcribing) m_worker->requestCancel();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) return;
    event->acceptProposedAction();
    const QString path = urls.first().toLocalFile();
    if (looksLikeModel(path)) openModel(path);
    else openAudio(path);
    if (urls.size() > 1)
        m_messageBar->showMessage(MessageBar::Kind::Information,
                                  tr("One file at a time: %1 was opened, the other %n file(s) were not.", nullptr,
                                     int(urls.size() - 1))
                                      .arg(QFileInfo(path).fileName()));
}

} // namespace hearsay::ui
