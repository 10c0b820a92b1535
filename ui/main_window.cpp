// Main window layout, actions and the GUI side of the worker protocol (see main_window.h).
#include "ui/main_window.h"

#include "ui/cache_panel.h"
#include "ui/desktop_presence.h"
#include "ui/dictate_anywhere.h"
#include "ui/dictate_anywhere_panel.h"
#include "ui/level_meter_bar.h"
#include "ui/live_panel.h"
#include "ui/message_bar.h"
#include "ui/model_manager_dialog.h"
#include "ui/recovery_bar.h"
#include "ui/settings_panel.h"
#include "ui/subtitle_options_dialog.h"
#include "ui/transcript_model.h"
#include "ui/transcription_worker.h"
#include "ui/word_playback.h"
#include "ui/word_timings_view.h"

#include "core/engine/session_controls.h"
#include "core/frontend/log_mel.h"

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
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
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
#include <QToolBar>
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
    : QMainWindow(parent), m_settings(settings ? std::move(settings) : std::make_unique<QSettings>()),
      m_controls(std::make_shared<SessionControls>()) {
    setWindowTitle(tr("Hearsay"));
    setWindowIcon(QIcon(":/icons/hearsay.svg"));
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
    // View › Word timings: the same rows as running words, played from a click.
    m_words = new WordTimingsView(m_transcript, this);
    m_playback = new WordPlayback(m_transcript, m_words, this);

    m_hint = new QLabel(this);
    m_hint->setObjectName("centreHint");
    m_hint->setAlignment(Qt::AlignCenter);
    m_hint->setWordWrap(true);
    m_hint->setEnabled(false);

    m_centre = new QStackedWidget(this);
    m_centre->addWidget(m_hint);
    m_centre->addWidget(m_view);
    m_centre->addWidget(m_words);
    m_messageBar = new MessageBar(this);
    m_recoveryBar = new RecoveryBar(this);
    connect(m_playback, &WordPlayback::message, this, [this](const QString& text, bool error) {
        m_messageBar->showMessage(error ? MessageBar::Kind::Error : MessageBar::Kind::Information, text);
    });
    connect(m_recoveryBar, &RecoveryBar::restoreRequested, this, &MainWindow::restoreJournal);
    connect(m_recoveryBar, &RecoveryBar::discardRequested, this, &MainWindow::discardJournal);
    auto* centre = new QWidget(this);
    auto* layout = new QVBoxLayout(centre);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->addWidget(m_recoveryBar);
    layout->addWidget(m_messageBar);
    // The dictation strip: the big Record/Stop button and the input level.
    auto* strip = new QHBoxLayout;
    m_recordButton = new QPushButton(this);
    m_recordButton->setObjectName("recordButton");
    m_recordButton->setMinimumHeight(40);
    m_recordButton->setMinimumWidth(150);
    QFont big = m_recordButton->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    m_recordButton->setFont(big);
    connect(m_recordButton, &QPushButton::clicked, this, &MainWindow::toggleRecording);
    m_levelMeter = new LevelMeterBar(this);
    strip->addWidget(m_recordButton);
    strip->addWidget(new QLabel(tr("Input"), this));
    strip->addWidget(m_levelMeter, 1);
    layout->addLayout(strip);
    layout->addWidget(m_centre, 1);
    setCentralWidget(centre);
    connect(m_transcript, &QAbstractItemModel::rowsInserted, this, &MainWindow::updateCentre);
    connect(m_transcript, &QAbstractItemModel::rowsRemoved, this, &MainWindow::updateCentre);
    connect(m_transcript, &QAbstractItemModel::modelReset, this, &MainWindow::updateCentre);

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
    m_worker = new TranscriptionWorker(m_controls);
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
    connect(m_worker, &TranscriptionWorker::notice, this,
            [this](const QString& message) { m_messageBar->showMessage(MessageBar::Kind::Information, message); });
    connect(m_worker, &TranscriptionWorker::inputDevicesListed, this, &MainWindow::onInputDevices);
    connect(m_worker, &TranscriptionWorker::dictationStarted, this, &MainWindow::onDictationStarted);
    connect(m_worker, &TranscriptionWorker::dictationFailed, this, &MainWindow::onDictationFailed);
    connect(m_worker, &TranscriptionWorker::tentativeChanged, this, &MainWindow::onTentative);
    connect(m_worker, &TranscriptionWorker::textCommitted, this, &MainWindow::onCommitted);
    connect(m_worker, &TranscriptionWorker::dictationStep, this, &MainWindow::onDictationStep);
    connect(m_worker, &TranscriptionWorker::inputLevelChanged, this, &MainWindow::onInputLevel);
    connect(m_worker, &TranscriptionWorker::dictationAudio, this,
            [this](const DictationAudio& audio) { m_playback->dictationAudio(audio.samples, kSampleRate, audio.truncated); });
    connect(m_worker, &TranscriptionWorker::dictationFinished, this, &MainWindow::onDictationFinished);
    connect(m_worker, &TranscriptionWorker::deviceMemoryRead, this, [this](const DeviceMemory& memory) {
        if (memory.known) m_cachePanel->setDeviceMemory(memory);
    });
    // Requests: queued signals carrying values, the one way to the worker.
    connect(this, &MainWindow::loadModelRequested, m_worker, &TranscriptionWorker::loadModel, Qt::QueuedConnection);
    connect(this, &MainWindow::transcribeRequested, m_worker, &TranscriptionWorker::transcribeFile, Qt::QueuedConnection);
    connect(this, &MainWindow::applySettingsRequested, m_worker, &TranscriptionWorker::applySettings, Qt::QueuedConnection);
    connect(this, &MainWindow::inputDevicesRequested, m_worker, &TranscriptionWorker::listInputDevices, Qt::QueuedConnection);
    connect(this, &MainWindow::dictationRequested, m_worker, &TranscriptionWorker::startDictation, Qt::QueuedConnection);
    connect(this, &MainWindow::deviceMemoryRequested, m_worker, &TranscriptionWorker::readDeviceMemory, Qt::QueuedConnection);
    m_thread->start();

    // The device's free memory changes with other programs too: asked for while idle (a running
    // job reports it with its metrics, a dictation every 50 ms).
    auto* memoryPoll = new QTimer(this);
    connect(memoryPoll, &QTimer::timeout, this, [this] {
        if (m_state == State::Idle) emit deviceMemoryRequested();
    });
    memoryPoll->start(kMemoryPollMs);
    emit inputDevicesRequested();

    // Journals left by runs that did not end normally (a crash, a kill) are offered for restoring.
    offerRecovery();

    restoreGeometry(m_settings->value("window/geometry").toByteArray());
    restoreState(m_settings->value("window/state").toByteArray());
    m_presence = new DesktopPresence(this, *m_settings);
    setState(State::Idle);
}

MainWindow::~MainWindow() {
    // A running transcription stops at its next decoder step; the thread's deleter then waits for it.
    m_controls->cancel = true;
    m_dictation.stop();
    m_thread.reset();
    // Ended without a close (the application quit another way): a normal end all the same.
    m_dictation.closeNormally();
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

    m_anywherePanel = new DictateAnywherePanel(this);
    auto* anywhereDock = new QDockWidget(tr("Dictate anywhere"), this);
    anywhereDock->setObjectName("anywhereDock");
    anywhereDock->setWidget(m_anywherePanel);
    addDockWidget(Qt::LeftDockWidgetArea, anywhereDock);
    m_anywhere = new DictateAnywhere(this);
    connect(m_anywherePanel, &DictateAnywherePanel::settingsChanged, this, &MainWindow::applyAnywhere);
    // The shortcut, from whichever application has the focus: the same requests as Record and Stop.
    connect(m_anywhere, &DictateAnywhere::toggleRequested, this, &MainWindow::toggleRecording);
    connect(m_anywhere, &DictateAnywhere::startRequested, this, [this] {
        if (m_state == State::Idle) startDictation();
    });
    connect(m_anywhere, &DictateAnywhere::stopRequested, this, &MainWindow::stopDictation);
    connect(m_anywhere, &DictateAnywhere::typingFailed, this, [this](const QString& why) {
        m_messageBar->showMessage(MessageBar::Kind::Warning, tr("Typing into the focused application stopped: %1\nThe "
                                                                "text is in the transcript and the journal.").arg(why));
    });
    connect(m_anywhere, &DictateAnywhere::statusChanged, this,
            [this] { m_anywherePanel->setStatus(m_anywhere->shortcutStatus(), m_anywhere->typingStatus()); });
    const AnywhereSettings anywhere = AnywhereSettings::load(*m_settings);
    m_anywherePanel->setSettings(anywhere);
    m_anywhere->apply(anywhere);

    m_livePanel = new LivePanel(this);
    auto* liveDock = new QDockWidget(tr("Live"), this);
    liveDock->setObjectName("liveDock");
    liveDock->setWidget(m_livePanel);
    addDockWidget(Qt::BottomDockWidgetArea, liveDock);
    resizeDocks({liveDock}, {170}, Qt::Vertical);
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
    QAction* recover = file->addAction(tr("&Recover last dictation…"), this, [this] { offerRecovery(true); });
    recover->setObjectName("recoverAction");
    recover->setStatusTip(tr("Offer again the dictated text that a run which did not close normally left on disk"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, [this] { m_presence->quit(); });  // also from the tray
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
    m_record = transcription->addAction(tr("&Record"), this, &MainWindow::toggleRecording);
    m_record->setObjectName("recordAction");
    m_record->setShortcut(QKeySequence(tr("Ctrl+R")));
    m_cancelAction = transcription->addAction(tr("&Cancel"), this, &MainWindow::cancelTranscription);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));

    QToolBar* toolbar = addToolBar(tr("Dictation"));
    toolbar->setObjectName("dictationToolbar");
    toolbar->addAction(m_record);
    toolbar->addAction(m_openAudio);
    toolbar->addAction(m_cancelAction);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    m_showTimes = view->addAction(tr("Segment &times"));
    m_showTimes->setCheckable(true);
    m_showTimes->setChecked(m_settings->value("view/segmentTimes", true).toBool());
    auto showTimes = [this](bool on) {
        m_view->setColumnHidden(TranscriptModel::StartColumn, !on);
        m_view->setColumnHidden(TranscriptModel::EndColumn, !on);
        m_settings->setValue("view/segmentTimes", on);
    };
    connect(m_showTimes, &QAction::toggled, this, showTimes);
    showTimes(m_showTimes->isChecked());
    // The next file is transcribed with word timestamps while this is on.
    m_wordTimings = view->addAction(tr("&Word timings"));
    m_wordTimings->setObjectName("wordTimingsAction");
    m_wordTimings->setCheckable(true);
    m_wordTimings->setChecked(m_settings->value("view/wordTimings", false).toBool());
    m_wordTimings->setStatusTip(tr("Show each word with its times (hover) and tint the unsure ones; click a word to play "
                                   "the audio from there, Space to pause. Files opened from now on get word timings."));
    connect(m_wordTimings, &QAction::toggled, this, [this](bool on) {
        m_settings->setValue("view/wordTimings", on);
        if (!on) m_playback->stop();
        updateCentre();
    });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* about = help->addAction(tr("&About Hearsay"), this, &MainWindow::showAbout);
    about->setObjectName("aboutAction");
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::setState(State state) {
    m_state = state;
    const bool idle = state == State::Idle;
    const bool dictating = state == State::Dictating || state == State::Stopping;
    m_openModel->setEnabled(idle);
    m_openModelDirectory->setEnabled(idle);
    m_openAudio->setEnabled(idle && m_hasModel);
    m_export->setEnabled(idle && m_transcript->segmentCount() > 0);
    m_clear->setEnabled(idle);
    m_cancelAction->setEnabled(state == State::Transcribing);
    m_cancel->setVisible(state == State::Transcribing);
    m_cancel->setEnabled(state == State::Transcribing);
    m_progress->setVisible(state == State::LoadingModel || state == State::Transcribing);
    if (state == State::LoadingModel) m_progress->setRange(0, 0);  // busy indicator
    m_transcript->setEditable(idle);
    m_playback->setAllowed(!dictating);
    m_view->setEditTriggers(idle ? QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                                 : QAbstractItemView::NoEditTriggers);

    // Record / Stop: enabled when it can act, and saying why when it cannot.
    const bool canRecord = (idle && m_hasModel) || state == State::Dictating;
    const QString label = dictating ? (state == State::Stopping ? tr("Stopping…") : tr("■ Stop")) : tr("● Record");
    QString why;
    if (state == State::Dictating) why = tr("Stop dictation: the words already spoken are transcribed first (Ctrl+R)");
    else if (state == State::Stopping) why = tr("Finishing the words already spoken…");
    else if (!m_hasModel) why = tr("Open a model first (File › Open model): dictation needs one");
    else if (!idle) why = tr("Wait for the current job to end (or cancel it) to dictate");
    else why = tr("Dictate from the input device chosen in the settings (Ctrl+R)");
    // Disabled, it says why in its own text too (menus and toolbars show no tooltip for it).
    m_record->setText(dictating ? tr("&Stop dictation")
                      : !m_hasModel ? tr("&Record (open a model first)")
                      : !idle      ? tr("&Record (after the current job)")
                                   : tr("&Record (dictate)"));
    m_record->setEnabled(canRecord);
    m_record->setToolTip(why);
    m_record->setStatusTip(why);
    m_recordButton->setText(label);
    m_recordButton->setEnabled(canRecord);
    m_recordButton->setToolTip(why);
    updateCentre();
    emit stateChanged();
}

void MainWindow::updateCentre() {
    if (m_transcript->rowCount() > 0 || m_state == State::Transcribing || isDictating()) {
        m_centre->setCurrentIndex(m_wordTimings && m_wordTimings->isChecked() ? 2 : 1);
        return;
    }
    if (m_state == State::LoadingModel)
        m_hint->setText(tr("<p style='font-size:large'>Loading the model…</p>"));
    else if (m_hasModel)
        m_hint->setText(tr("<p style='font-size:large'>No transcript yet</p>"
                           "<p>Model <b>%1</b> is loaded. Press <b>● Record</b> (Ctrl+R) and speak, or open an "
                           "audio or video file (<b>File › Open audio</b>) or drop one onto this window.</p>")
                            .arg(m_modelName.toHtmlEscaped()));
    else
        m_hint->setText(tr("<p style='font-size:large'>No transcript yet</p>"
                           "<p>Open a model (<b>File › Open model</b>), then press <b>● Record</b> to dictate, or "
                           "open an audio or video file (<b>File › Open audio</b>), or drop either onto this "
                           "window.</p>"));
    m_centre->setCurrentIndex(0);
}

void MainWindow::keepingScroll(const std::function<void()>& change) {
    QScrollBar* bar = m_view->verticalScrollBar();
    const bool atEnd = bar->value() >= bar->maximum();
    change();
    if (atEnd) m_view->scrollToBottom();
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
    const auto subtitles = SubtitleOptionsDialog::ask(m_transcript->transcript(), format.value(), *m_settings, this);
    if (subtitles) exportTranscript(path, format.value(), *subtitles);
}

bool MainWindow::exportTranscript(const QString& path, ExportFormat format, const SubtitleOptions& subtitles) {
    const std::string content = hearsay::exportTranscript(m_transcript->transcript(), format, subtitles);
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
    if (m_state != State::Idle) return;
    m_transcript->clear();
    setState(m_state);
}

void MainWindow::applySettings(const EngineSettings& settings) {
    m_engineSettings = settings;
    settings.save(*m_settings);
    // The switches (caches, step graphs) take effect at the engine's next decoder step, even in the middle of a window;
    // the rest is applied by the worker when it is next free (queued behind a running job).
    m_controls->selfCache = settings.selfCache;
    m_controls->crossCache = settings.crossCache;
    m_controls->stepGraphs = settings.stepGraphs;
    if (m_hasModel) emit applySettingsRequested(settings);
}

void MainWindow::applyAnywhere(const AnywhereSettings& settings) {
    settings.save(*m_settings);
    m_anywhere->apply(settings);
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
    emit loadModelRequested(path, m_engineSettings);
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
    if (m_transcript->segmentCount() > 0)
        m_messageBar->showMessage(MessageBar::Kind::Information,
                                  tr("The transcript of %1 follows the earlier text, which is kept (Edit › Clear "
                                     "transcript starts afresh).")
                                      .arg(QFileInfo(path).fileName()));
    startJob(path, 0.0);
}

void MainWindow::startJob(const QString& path, double startSeconds) {
    // The transcript shown stays until the new job has its audio (see onTranscriptionStarted):
    // a job that cannot start loses nothing.
    m_audio = {};
    m_audio.path = path;
    m_jobStarted = false;
    m_jobReachedSeconds = startSeconds;
    m_statusText->setText(tr("Opening %1…").arg(QFileInfo(path).fileName()));
    m_controls->cancel = false;
    setState(State::Transcribing);
    // Until the first window ends, nothing is known of the progress: a busy bar, not the last
    // file's figures or a 0% that never moves on a single-window file.
    m_progress->setRange(0, 0);
    m_progress->setFormat(tr("Opening…"));
    EngineSettings settings = m_engineSettings;
    settings.wordTimestamps = m_wordTimings->isChecked();
    if (startSeconds > 0.0) {
        // A continuation is prompted with the end of the text kept, as the next window of an
        // unbroken run would be (the engine keeps the last n_text_ctx/2 - 1 tokens of it).
        QString kept;
        for (int r = m_transcript->segmentCount() - 1; r >= 0 && kept.size() < 1000; --r)
            kept.prepend(QString::fromStdString(m_transcript->segment(r).text));
        settings.initialPrompt = kept.right(1000);
    }
    emit transcribeRequested(path, settings, startSeconds);
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
    m_controls->cancel = true;
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
    m_modelName = QFileInfo(model.path).fileName();
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
    m_progress->setRange(0, 0);  // busy until the first window ends
    m_progress->setFormat(tr("0.0 of %1 s").arg(audio.durationSeconds, 0, 'f', 1));
    // The segments on screen stay (an earlier file's, or dictated text): the new ones follow them.
    {
        const int rows = m_transcript->segmentCount();
        m_resumeIdBase = rows > 0 ? m_transcript->segment(rows - 1).id + 1 : 0;
        // The file's audio plays from its rows (a continuation's rows follow the same file's).
        m_playback->setAudio(audio.samples, kSampleRate, audio.startSeconds > 0.0 ? m_playback->firstRow() : rows);
    }
    if (audio.startSeconds > 0.0) {
        m_statusText->setText(tr("Continuing %1 from %2 s on the %3 backend")
                                  .arg(QFileInfo(audio.path).fileName())
                                  .arg(audio.startSeconds, 0, 'f', 1)
                                  .arg(m_engineSettings.backend.toUpper()));
        return;
    }
    m_statusText->setText(tr("Transcribing %1 (%2 s, %3 Hz, %4 ch, %5)")
                              .arg(QFileInfo(audio.path).fileName())
                              .arg(audio.durationSeconds, 0, 'f', 1)
                              .arg(audio.sourceRate)
                              .arg(audio.sourceChannels)
                              .arg(audio.decoder));
}

void MainWindow::onProgress(double fraction) {
    m_jobReachedSeconds = std::max(m_jobReachedSeconds, fraction * m_audio.durationSeconds);
    m_progress->setRange(0, kProgressSteps);
    m_progress->setValue(int(fraction * kProgressSteps + 0.5));
    m_progress->setFormat(tr("%1 of %2 s").arg(fraction * m_audio.durationSeconds, 0, 'f', 1).arg(m_audio.durationSeconds, 0, 'f', 1));
}

void MainWindow::onSegments(const SegmentList& segments) {
    keepingScroll([&] {
        SegmentList numbered = segments;
        for (Segment& s : numbered) s.id += m_resumeIdBase;
        m_transcript->appendSegments(numbered);
    });
}

void MainWindow::onTranscriptionFinished(const Transcript& transcript) {
    m_transcript->setRunDetails(transcript.source, transcript.language, transcript.statistics);
    const RunStatistics& s = transcript.statistics;
    m_statusText->setText(tr("Transcribed %1: %2 segments, language %3, %4 s of audio in %5 s (real-time factor %6)")
                              .arg(QFileInfo(m_audio.path).fileName())
                              .arg(m_transcript->segmentCount())
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
    const QString kept = m_transcript->segmentCount() > 0
                             ? tr("The %n segment(s) already transcribed are kept.", nullptr, m_transcript->segmentCount())
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
    m_settingsPanel->setBackendInUse(metrics.backend);
    emit metricsShown(metrics);
}

// ---- dictation -----------------------------------------------------------------------------------

void MainWindow::toggleRecording() {
    if (m_state == State::Dictating) stopDictation();
    else if (m_state == State::Idle) startDictation();
}

void MainWindow::startDictation() { beginDictation(QString(), 1.0); }

void MainWindow::dictateFile(const QString& file, double speed) { beginDictation(file, speed); }

void MainWindow::beginDictation(const QString& file, double speed) {
    if (isBusy()) {
        m_messageBar->showMessage(MessageBar::Kind::Warning, tr("Wait for the current job to end (or cancel it) first."));
        return;
    }
    if (!m_hasModel) {
        showError(tr("Open a model before dictating (File › Open model)."));
        return;
    }
    m_controls->cancel = false;
    m_livePanel->clear();
    m_transcript->closeUtterance();
    m_playback->dictationStarting();
    QString journalProblem;
    const DictationRequest request = m_dictation.begin(m_engineSettings, file, speed, &journalProblem);
    if (!journalProblem.isEmpty())
        m_messageBar->showMessage(MessageBar::Kind::Warning, tr("Dictated text is not journaled: %1").arg(journalProblem));
    m_statusText->setText(tr("Starting dictation…"));
    setState(State::Dictating);
    emit dictationRequested(request, m_engineSettings, journalPath());
}

void MainWindow::stopDictation() {
    if (m_state != State::Dictating || !m_dictation.stop()) return;
    m_statusText->setText(tr("Stopping: transcribing the words already spoken…"));
    setState(State::Stopping);
}

void MainWindow::offerRecovery(bool tellIfNone) {
    auto found = m_dictation.scanLeftovers();
    if (!found) {
        m_messageBar->showMessage(MessageBar::Kind::Warning, QString::fromStdString(found.message()));
        return;
    }
    m_recoveryBar->setJournals(found.value());  // the unreadable ones are named there, and left alone
    if (found->empty() && tellIfNone)
        m_messageBar->showMessage(MessageBar::Kind::Information, tr("No dictated text is waiting to be recovered."));
}

bool MainWindow::restoreJournal() {
    if (m_dictation.leftovers().empty()) return false;
    keepingScroll([&] {
        for (const LeftoverJournal& j : m_dictation.leftovers()) {
            m_transcript->closeUtterance();
            for (const JournalEntry& e : j.entries) m_transcript->appendCommitted(e.text, e.start, e.end, e.endOfUtterance);
        }
        m_transcript->closeUtterance();
    });
    const auto moved = m_dictation.adoptLeftovers();
    m_recoveryBar->setJournals({});
    if (moved) m_messageBar->showMessage(MessageBar::Kind::Information, tr("The dictated text was restored."));
    else m_messageBar->showMessage(MessageBar::Kind::Warning,
                                   tr("The dictated text was restored; its journal files stay on disk (%1).")
                                       .arg(QString::fromStdString(moved.message())));
    setState(m_state);
    return true;
}

bool MainWindow::discardJournal() {
    if (m_dictation.leftovers().empty()) return false;
    const auto removed = m_dictation.discardLeftovers();
    m_recoveryBar->setJournals({});
    if (!removed) m_messageBar->showMessage(MessageBar::Kind::Warning, QString::fromStdString(removed.message()));
    return true;
}

void MainWindow::onInputDevices(const InputDeviceList& devices, const QString& error) {
    QString missing;
    m_settingsPanel->setInputDevices(devices, &missing);
    if (!error.isEmpty())
        m_messageBar->showMessage(MessageBar::Kind::Warning, tr("Cannot list the input devices: %1").arg(error));
    else if (!missing.isEmpty())
        m_messageBar->showMessage(MessageBar::Kind::Warning,
                                  tr("The input device \"%1\" is no longer available. Choose another one in the "
                                     "settings, or Record uses it if it comes back.")
                                      .arg(missing));
}

void MainWindow::onDictationStarted(const DictationInfo& info) {
    // The cache panel follows the dictation's session from now on (its counters from zero).
    m_cachePanel->setMetrics(m_dictation.started(info, m_cachePanel->metrics()));
    m_anywhere->runStarted();
    m_statusText->setText(tr("Listening: %1").arg(info.source));
    emit dictationStarted();
}

void MainWindow::onDictationFailed(const QString& message) {
    m_dictation.failed();
    showError(message);
    setState(State::Idle);
    emit inputDevicesRequested();  // the device list may have changed (a device that vanished)
    emit dictationEnded(false);
}

void MainWindow::onTentative(const TentativeText& text) {
    keepingScroll([&] { m_transcript->setTentative(QString::fromStdString(text.text)); });
    emit tentativeShown(QString::fromStdString(text.text));
}

void MainWindow::onCommitted(const CommittedText& text) {
    keepingScroll([&] {
        m_transcript->appendCommitted(text.text, text.start, text.end, text.endOfUtterance, text.words);
    });
    m_livePanel->setLatency(text.tentativeLatency, text.commitLatency);
    emit committedShown(QString::fromStdString(text.text));
    // Into the focused application too, unless it is this window (or one of its dialogs).
    const QWidget* active = QApplication::activeWindow();
    const bool ownWindowActive = active && (active == this || active->parentWidget() == this);
    m_anywhere->committed(text.text, ownWindowActive);
}

void MainWindow::onDictationStep(const StreamingStep& step) {
    m_livePanel->setStep(step);
    // The model and caches panel shows the dictation's session.
    m_cachePanel->setMetrics(DictationController::withStep(m_cachePanel->metrics(), step));
    emit stepShown(step);
}

void MainWindow::onInputLevel(const InputLevel& level) {
    m_levelMeter->setLevel(level);
    emit inputLevelShown(level);
}

void MainWindow::onDictationFinished(const StreamingSummary& summary) {
    m_dictation.finished(summary);
    keepingScroll([&] {
        m_transcript->setTentative(QString());
        m_transcript->closeUtterance();
    });
    m_levelMeter->setLevel({});
    const QString figures = tr("%1 s of audio, %2 steps, real-time factor %3")
                                .arg(summary.audioSeconds, 0, 'f', 1)
                                .arg(summary.steps)
                                .arg(summary.realTimeFactor, 0, 'f', 3);
    setState(State::Idle);
    if (!summary.error.empty()) {
        showError(tr("Dictation from %1 ended: %2\nThe text committed until then is kept.")
                      .arg(m_dictation.source(), QString::fromStdString(summary.error)));
        emit inputDevicesRequested();  // a device that was lost: the list as it is now
    } else {
        m_statusText->setText(tr("Dictation ended: %1").arg(figures));
    }
    if (summary.droppedSamples > 0)
        m_messageBar->showMessage(MessageBar::Kind::Warning,
                                  tr("%1 s of audio were lost: the engine fell behind the microphone.")
                                      .arg(double(summary.droppedSamples) / 16000.0, 0, 'f', 1));
    emit dictationEnded(summary.error.empty());
}

QString MainWindow::aboutText() const {
    const EngineMetrics& m = m_cachePanel->metrics();
    const QString version = QApplication::applicationVersion().isEmpty() ? QStringLiteral("0.1.0")
                                                                          : QApplication::applicationVersion();
    return tr("<h3>Hearsay %1</h3><p>Live speech recognition with Whisper models, with the decoder's key/value "
              "caches in view.</p><p><b>Model:</b> %2<br><b>Backend:</b> %3</p>"
              "<p>Hearsay is MIT-licensed. It uses Qt 6 (LGPL-3.0), PortAudio (MIT), libsndfile (LGPL-2.1), "
              "libsamplerate (BSD-2-Clause), KissFFT (BSD-3-Clause), OpenBLAS (BSD-3-Clause), zlib (zlib), FFmpeg "
              "(LGPL-2.1 or later, as the system builds it), the Silero VAD weights (MIT), and with CUDA NVIDIA's "
              "CUDA runtime and cuBLAS (NVIDIA's license). The Whisper model weights are MIT-licensed (OpenAI).</p>")
        .arg(version, m_hasModel ? m_modelPath.toHtmlEscaped() : tr("none loaded"),
             m.backend.isEmpty() ? tr("none yet (chosen when a model is loaded)") : m.backend.toHtmlEscaped());
}

void MainWindow::showAbout() {
    QMessageBox box(this);
    box.setWindowTitle(tr("About Hearsay"));
    box.setIconPixmap(windowIcon().pixmap(64, 64));
    box.setText(aboutText());
    box.setStandardButtons(QMessageBox::Ok);
    box.exec();
}

// ---- window events -------------------------------------------------------------------------------

void MainWindow::closeEvent(QCloseEvent* event) {
    m_settings->setValue("window/geometry", saveGeometry());
    m_settings->setValue("window/state", saveState());
    if (m_state == State::Transcribing) m_controls->cancel = true;
    m_dictation.stop();
    // A normal close: this window's own journal goes (its text was on screen until now). Text
    // left by earlier runs stays on disk until the user restores or discards it.
    m_dictation.closeNormally();
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
