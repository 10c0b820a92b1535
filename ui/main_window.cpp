// The main window: its parts put together and wired to the worker, what the user asks forwarded,
// the state painted (see main_window.h).
#include "ui/main_window.h"

#include "ui/about_box.h"
#include "ui/cache_panel.h"
#include "ui/desktop_presence.h"
#include "ui/dictate_anywhere.h"
#include "ui/dictate_anywhere_panel.h"
#include "ui/dictation_view.h"
#include "ui/file_job_controller.h"
#include "ui/job_status_bar.h"
#include "ui/journal_recovery.h"
#include "ui/level_meter_bar.h"
#include "ui/live_panel.h"
#include "ui/main_window_docks.h"
#include "ui/message_bar.h"
#include "ui/model_manager_dialog.h"
#include "ui/open_dialogs.h"
#include "ui/recovery_bar.h"
#include "ui/settings_panel.h"
#include "ui/transcript_export_dialog.h"
#include "ui/transcript_model.h"
#include "ui/transcript_pane.h"
#include "ui/transcription_worker.h"
#include "ui/word_playback.h"
#include "ui/word_timings_view.h"

#include "ui/engine_controls.h"
#include "core/frontend/log_mel.h"

#include <QAction>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QMimeData>
#include <QSettings>
#include <QTableView>
#include <QTimer>

#include <algorithm>

namespace hearsay::ui {
namespace {

constexpr int kMemoryPollMs = 1000;

} // namespace

MainWindow::MainWindow(std::unique_ptr<QSettings> settings, QWidget* parent)
    : QMainWindow(parent), m_settings(settings ? std::move(settings) : std::make_unique<QSettings>()) {
    // The engine's worker first: its controls are the one way Cancel and the switches reach a job.
    m_worker = new TranscriptionWorker;
    m_controls = m_worker->controls();
    setWindowTitle(tr("Hearsay"));
    setWindowIcon(QIcon(":/icons/hearsay.svg"));
    setAcceptDrops(true);
    resize(1100, 700);

    // Centre: the bars and the dictation strip above the transcript (or, while empty, a hint).
    m_transcript = new TranscriptModel(this);
    m_pane = new TranscriptPane(m_transcript, this);
    m_view = m_pane->view();
    m_words = m_pane->words();
    m_messageBar = m_pane->messageBar();
    m_recoveryBar = m_pane->recoveryBar();
    m_levelMeter = m_pane->levelMeter();
    setCentralWidget(m_pane);
    connect(m_pane, &TranscriptPane::recordClicked, this, &MainWindow::toggleRecording);
    connect(m_transcript, &QAbstractItemModel::rowsInserted, this, &MainWindow::updateCentre);
    connect(m_transcript, &QAbstractItemModel::rowsRemoved, this, &MainWindow::updateCentre);
    connect(m_transcript, &QAbstractItemModel::modelReset, this, &MainWindow::updateCentre);
    // A click on a word or a segment's time plays the audio from there.
    m_playback = new WordPlayback(m_transcript, m_words, this);
    connect(m_playback, &WordPlayback::message, this, [this](const QString& text, bool error) {
        m_messageBar->showMessage(error ? MessageBar::Kind::Error : MessageBar::Kind::Information, text);
    });
    m_recovery = new JournalRecovery(m_dictation, m_transcript, m_recoveryBar, this);
    connect(m_recovery, &JournalRecovery::message, m_messageBar,
            qOverload<MessageBar::Kind, const QString&>(&MessageBar::showMessage));
    connect(m_recoveryBar, &RecoveryBar::restoreRequested, this, &MainWindow::restoreJournal);
    connect(m_recoveryBar, &RecoveryBar::discardRequested, this, &MainWindow::discardJournal);

    // Status bar: what happens, progress and Cancel.
    m_status = new JobStatusBar(this);
    setStatusBar(m_status);
    connect(m_status, &JobStatusBar::cancelRequested, this, &MainWindow::cancelTranscription);

    m_engineSettings = EngineSettings::load(*m_settings);
    m_jobs = new FileJobController(m_engineSettings, m_controls, m_transcript, *m_settings, this);
    connect(m_jobs, &FileJobController::jobChanged, this, &MainWindow::paintState);
    connect(m_jobs, &FileJobController::status, m_status, &JobStatusBar::setText);
    connect(m_jobs, &FileJobController::message, m_messageBar,
            qOverload<MessageBar::Kind, const QString&>(&MessageBar::showMessage));
    connect(m_jobs, &FileJobController::cpuBackendOffered, this, &MainWindow::offerCpuBackend);
    connect(m_jobs, &FileJobController::progressShown, m_status, &JobStatusBar::setProgress);
    connect(m_jobs, &FileJobController::modelLoaded, this, &MainWindow::onModelLoaded);
    connect(m_jobs, &FileJobController::audioOpened, this, &MainWindow::onAudioOpened);
    connect(m_jobs, &FileJobController::segmentsReady, this, [this](const SegmentList& segments) {
        keepingScroll([&] { m_transcript->appendSegments(segments); });
    });
    connect(m_jobs, &FileJobController::modelLoadFinished, this, &MainWindow::modelLoadFinished);
    connect(m_jobs, &FileJobController::transcriptionEnded, this, &MainWindow::transcriptionEnded);
    createDocks();
    createActions();
    m_dictationView = new DictationView(m_dictation, {this, m_pane, m_transcript, m_livePanel, m_cachePanel, m_levelMeter,
                                                      m_playback, m_anywhere}, this);
    connect(m_dictationView, &DictationView::status, m_status, &JobStatusBar::setText);
    connect(m_dictationView, &DictationView::message, m_messageBar,
            qOverload<MessageBar::Kind, const QString&>(&MessageBar::showMessage));
    connect(m_dictationView, &DictationView::phaseChanged, this, &MainWindow::paintState);
    connect(m_dictationView, &DictationView::devicesChanged, this, &MainWindow::inputDevicesRequested);
    connect(m_dictationView, &DictationView::started, this, &MainWindow::dictationStarted);
    connect(m_dictationView, &DictationView::stepShown, this, &MainWindow::stepShown);
    connect(m_dictationView, &DictationView::committedShown, this, &MainWindow::committedShown);
    connect(m_dictationView, &DictationView::tentativeShown, this, &MainWindow::tentativeShown);
    connect(m_dictationView, &DictationView::inputLevelShown, this, &MainWindow::inputLevelShown);
    connect(m_dictationView, &DictationView::ended, this, &MainWindow::dictationEnded);

    // The engine's thread. The worker is deleted there once the event loop has stopped.
    m_thread.reset(new QThread);
    m_thread->setObjectName("hearsay-engine");
    m_worker->moveToThread(m_thread.get());
    connect(m_thread.get(), &QThread::finished, m_worker, &QObject::deleteLater);
    m_jobs->connectWorker(m_worker);
    connect(m_worker, &TranscriptionWorker::metricsUpdated, this, &MainWindow::onMetrics);
    connect(m_worker, &TranscriptionWorker::warning, this, &MainWindow::onWarning);
    connect(m_worker, &TranscriptionWorker::notice, this,
            [this](const QString& message) { m_messageBar->showMessage(MessageBar::Kind::Information, message); });
    connect(m_worker, &TranscriptionWorker::inputDevicesListed, this, &MainWindow::onInputDevices);
    m_dictationView->connectWorker(m_worker);
    connect(m_worker, &TranscriptionWorker::deviceMemoryRead, this, [this](const DeviceMemory& memory) {
        if (memory.known) m_cachePanel->setDeviceMemory(memory);
    });
    // Requests: queued signals carrying values, the one way to the worker.
    connect(this, &MainWindow::applySettingsRequested, m_worker, &TranscriptionWorker::applySettings, Qt::QueuedConnection);
    connect(this, &MainWindow::inputDevicesRequested, m_worker, &TranscriptionWorker::listInputDevices, Qt::QueuedConnection);
    connect(this, &MainWindow::dictationRequested, m_worker, &TranscriptionWorker::startDictation, Qt::QueuedConnection);
    connect(this, &MainWindow::deviceMemoryRequested, m_worker, &TranscriptionWorker::readDeviceMemory, Qt::QueuedConnection);
    m_thread->start();

    // The device's free memory changes with other programs too: asked for while idle (a running
    // job reports it with its metrics, a dictation every 50 ms).
    auto* memoryPoll = new QTimer(this);
    connect(memoryPoll, &QTimer::timeout, this, [this] {
        if (state() == State::Idle) emit deviceMemoryRequested();
    });
    memoryPoll->start(kMemoryPollMs);
    emit inputDevicesRequested();

    // Journals left by runs that did not end normally (a crash, a kill) are offered for restoring.
    offerRecovery();

    restoreGeometry(m_settings->value("window/geometry").toByteArray());
    restoreState(m_settings->value("window/state").toByteArray());
    m_presence = new DesktopPresence(this, *m_settings);
    connect(m_actions.quit, &QAction::triggered, m_presence, &DesktopPresence::quit);  // also from the tray
    paintState();
}

MainWindow::~MainWindow() {
    // A running transcription stops at its next decoder step; the thread's deleter then waits for it.
    m_controls->cancel();
    m_dictation.stop();
    m_thread.reset();
    // Ended without a close (the application quit another way): a normal end all the same.
    m_dictation.closeNormally();
}

void MainWindow::createDocks() {
    const MainWindowDocks docks = MainWindowDocks::create(this);
    m_settingsPanel = docks.settings;
    m_cachePanel = docks.cache;
    m_anywherePanel = docks.anywhere;
    m_livePanel = docks.live;
    m_settingsPanel->setSettings(m_engineSettings);
    connect(m_settingsPanel, &SettingsPanel::settingsChanged, this, &MainWindow::applySettings);

    m_anywhere = new DictateAnywhere(this);
    connect(m_anywherePanel, &DictateAnywherePanel::settingsChanged, this, &MainWindow::applyAnywhere);
    // The shortcut, from whichever application has the focus: the same requests as Record and Stop.
    connect(m_anywhere, &DictateAnywhere::toggleRequested, this, &MainWindow::toggleRecording);
    connect(m_anywhere, &DictateAnywhere::startRequested, this, [this] {
        if (state() == State::Idle) startDictation();
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
}

void MainWindow::createActions() {
    m_actions = MainWindowActions::create(this, m_view);
    const MainWindowActions& a = m_actions;
    connect(a.openModel, &QAction::triggered, this, &MainWindow::chooseModel);
    connect(a.openModelDirectory, &QAction::triggered, this, &MainWindow::chooseModelDirectory);
    connect(a.models, &QAction::triggered, this, [this] { showModelManager(); });
    connect(a.openAudio, &QAction::triggered, this, &MainWindow::chooseAudio);
    connect(a.exportTranscript, &QAction::triggered, this, &MainWindow::chooseExport);
    connect(a.recover, &QAction::triggered, this, [this] { offerRecovery(true); });
    connect(a.copy, &QAction::triggered, m_pane, &TranscriptPane::copySelection);
    connect(a.copyAll, &QAction::triggered, m_pane, &TranscriptPane::copyAll);
    connect(a.selectAll, &QAction::triggered, m_view, &QAbstractItemView::selectAll);
    connect(a.clear, &QAction::triggered, this, &MainWindow::clearTranscript);
    connect(a.record, &QAction::triggered, this, &MainWindow::toggleRecording);
    connect(a.cancel, &QAction::triggered, this, &MainWindow::cancelTranscription);
    connect(a.about, &QAction::triggered, this, &MainWindow::showAbout);

    a.segmentTimes->setChecked(m_settings->value("view/segmentTimes", true).toBool());
    auto showTimes = [this](bool on) {
        m_view->setColumnHidden(TranscriptModel::StartColumn, !on);
        m_view->setColumnHidden(TranscriptModel::EndColumn, !on);
        m_settings->setValue("view/segmentTimes", on);
    };
    connect(a.segmentTimes, &QAction::toggled, this, showTimes);
    showTimes(a.segmentTimes->isChecked());
    a.wordTimings->setChecked(m_settings->value("view/wordTimings", false).toBool());
    m_jobs->setWordTimestamps(a.wordTimings->isChecked());
    connect(a.wordTimings, &QAction::toggled, this, [this](bool on) {
        m_settings->setValue("view/wordTimings", on);
        m_jobs->setWordTimestamps(on);
        if (!on) m_playback->stop();
        updateCentre();
    });
}

MainWindow::State MainWindow::state() const {
    switch (m_jobs->job()) {
    case FileJobController::Job::LoadingModel: return State::LoadingModel;
    case FileJobController::Job::Transcribing: return State::Transcribing;
    case FileJobController::Job::None: break;
    }
    switch (m_dictation.phase()) {
    case DictationController::Phase::Starting:
    case DictationController::Phase::Listening: return State::Dictating;
    case DictationController::Phase::Stopping: return State::Stopping;
    case DictationController::Phase::Idle: break;
    }
    return State::Idle;
}

bool MainWindow::hasModel() const { return m_jobs->hasModel(); }

void MainWindow::paintState() {
    const State state = this->state();
    const bool hasModel = m_jobs->hasModel();
    const bool idle = state == State::Idle;
    const bool dictating = state == State::Dictating || state == State::Stopping;
    m_actions.openModel->setEnabled(idle);
    m_actions.openModelDirectory->setEnabled(idle);
    m_actions.openAudio->setEnabled(idle && hasModel);
    m_actions.exportTranscript->setEnabled(idle && m_transcript->segmentCount() > 0);
    m_actions.clear->setEnabled(idle);
    m_actions.cancel->setEnabled(state == State::Transcribing);
    m_status->showJob(state == State::Transcribing   ? JobStatusBar::Job::Transcribing
                      : state == State::LoadingModel ? JobStatusBar::Job::LoadingModel
                                                     : JobStatusBar::Job::None);
    m_transcript->setEditable(idle);
    m_playback->setAllowed(!dictating);
    m_view->setEditTriggers(idle ? QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                                 : QAbstractItemView::NoEditTriggers);

    // Record / Stop: enabled when it can act, and saying why when it cannot.
    const bool canRecord = (idle && hasModel) || state == State::Dictating;
    const QString label = dictating ? (state == State::Stopping ? tr("Stopping…") : tr("■ Stop")) : tr("● Record");
    QString why;
    if (state == State::Dictating) why = tr("Stop dictation: the words already spoken are transcribed first (Ctrl+R)");
    else if (state == State::Stopping) why = tr("Finishing the words already spoken…");
    else if (!hasModel) why = tr("Open a model first (File › Open model): dictation needs one");
    else if (!idle) why = tr("Wait for the current job to end (or cancel it) to dictate");
    else why = tr("Dictate from the input device chosen in the settings (Ctrl+R)");
    // Disabled, it says why in its own text too (menus and toolbars show no tooltip for it).
    m_actions.record->setText(dictating ? tr("&Stop dictation")
                      : !hasModel ? tr("&Record (open a model first)")
                      : !idle      ? tr("&Record (after the current job)")
                                   : tr("&Record (dictate)"));
    m_actions.record->setEnabled(canRecord);
    m_actions.record->setToolTip(why);
    m_actions.record->setStatusTip(why);
    m_pane->setRecordButton(label, canRecord, why);
    updateCentre();
    emit stateChanged();
}

void MainWindow::updateCentre() {
    const State state = this->state();
    if (m_transcript->rowCount() > 0 || state == State::Transcribing || isDictating())
        return m_pane->showTranscript(m_actions.wordTimings && m_actions.wordTimings->isChecked());
    if (state == State::LoadingModel)
        m_pane->showHint(tr("<p style='font-size:large'>Loading the model…</p>"));
    else if (m_jobs->hasModel())
        m_pane->showHint(tr("<p style='font-size:large'>No transcript yet</p>"
                            "<p>Model <b>%1</b> is loaded. Press <b>● Record</b> (Ctrl+R) and speak, or open an "
                            "audio or video file (<b>File › Open audio</b>) or drop one onto this window.</p>")
                             .arg(QFileInfo(m_jobs->modelPath()).fileName().toHtmlEscaped()));
    else
        m_pane->showHint(tr("<p style='font-size:large'>No transcript yet</p>"
                            "<p>Open a model (<b>File › Open model</b>), then press <b>● Record</b> to dictate, or "
                            "open an audio or video file (<b>File › Open audio</b>), or drop either onto this "
                            "window.</p>"));
}

void MainWindow::keepingScroll(const std::function<void()>& change) { m_pane->keepingScroll(change); }

void MainWindow::showError(const QString& text) {
    m_messageBar->showMessage(MessageBar::Kind::Error, text);
    m_status->setText(tr("Error"));
}

void MainWindow::warnBusy() {
    m_messageBar->showMessage(MessageBar::Kind::Warning, tr("Wait for the current job to end (or cancel it) first."));
}

// ---- actions ------------------------------------------------------------------------------------

void MainWindow::chooseModel() {
    const QString path = OpenDialogs::askModelFile(this, m_settings->value("session/modelFolder").toString());
    if (!path.isEmpty()) openModel(path);
}

void MainWindow::chooseModelDirectory() {
    const QString path = OpenDialogs::askModelDirectory(this, m_settings->value("session/modelFolder").toString());
    if (!path.isEmpty()) openModel(path);
}

void MainWindow::chooseAudio() {
    const QString path = OpenDialogs::askAudio(this, m_settings->value("session/audioFolder").toString());
    if (!path.isEmpty()) openAudio(path);
}

void MainWindow::chooseExport() {
    const auto choice = TranscriptExportDialog::ask(m_transcript->transcript(), *m_settings, this);
    if (choice) exportTranscript(choice->path, choice->format, choice->subtitles);
}

bool MainWindow::exportTranscript(const QString& path, ExportFormat format, const SubtitleOptions& subtitles) {
    if (const auto error = TranscriptExportDialog::write(path, m_transcript->transcript(), format, subtitles)) {
        showError(tr("Cannot write %1: %2").arg(path, *error));
        return false;
    }
    m_status->setText(tr("Exported %1").arg(QFileInfo(path).fileName()));
    return true;
}

void MainWindow::clearTranscript() {
    if (state() != State::Idle) return;
    m_transcript->clear();
    paintState();
}

void MainWindow::applySettings(const EngineSettings& settings) {
    m_engineSettings = settings;
    settings.save(*m_settings);
    // The switches (caches, step graphs) take effect at the engine's next decoder step, even in the middle of a window
    // (asked of the worker's controls); the rest is applied by the worker when it is next free (queued behind a job).
    m_controls->requestSwitches(settings.selfCache, settings.crossCache, settings.stepGraphs);
    if (hasModel()) emit applySettingsRequested(settings);
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
    if (isBusy()) return warnBusy();
    m_jobs->loadModel(path);
}

void MainWindow::openAudio(const QString& path) {
    if (isBusy()) return warnBusy();
    m_jobs->transcribe(path);
}

void MainWindow::cancelTranscription() {
    if (m_jobs->cancel()) m_status->cancelling();
}

void MainWindow::useCpuBackend() {
    EngineSettings settings = m_settingsPanel->settings();
    settings.backend = "cpu";
    m_settingsPanel->setSettings(settings);
    applySettings(settings);  // saved, and applied by the worker before any job queued after it
}

void MainWindow::offerCpuBackend(MessageBar::Kind kind, const QString& text, std::function<void()> retry) {
    m_messageBar->showMessage(kind, text, tr("Use the CPU backend"), [this, retry = std::move(retry)] {
        if (isBusy()) return warnBusy();
        useCpuBackend();
        if (retry) retry();
    });
}

// ---- worker reports ------------------------------------------------------------------------------

void MainWindow::onModelLoaded(const ModelSummary& model) {
    m_cachePanel->setModel(model);
    m_settingsPanel->setModel(model);
    m_engineSettings = m_settingsPanel->settings();
    m_messageBar->hide();
    setWindowTitle(tr("Hearsay — %1").arg(QFileInfo(model.path).fileName()));
}

void MainWindow::onAudioOpened(const AudioSummary& audio) {
    // The file's audio plays from its rows (a continuation's rows follow the same file's).
    m_playback->setAudio(audio.samples, kSampleRate,
                         audio.startSeconds > 0.0 ? m_playback->firstRow() : m_transcript->segmentCount());
}

void MainWindow::onWarning(const EngineFailure& problem) {
    if (problem.cpuMayHelp())
        offerCpuBackend(MessageBar::Kind::Warning,
                        problem.message + "\n" + tr("The engine keeps its current backend for now."), nullptr);
    else
        m_messageBar->showMessage(MessageBar::Kind::Warning, problem.message);
}

void MainWindow::onMetrics(const EngineMetrics& metrics) {
    m_cachePanel->setMetrics(metrics);
    m_settingsPanel->setBackendInUse(metrics.backendKind);
    emit metricsShown(metrics);
}

// ---- dictation -----------------------------------------------------------------------------------

void MainWindow::toggleRecording() {
    if (state() == State::Dictating) stopDictation();
    else if (state() == State::Idle) startDictation();
}

void MainWindow::startDictation() { beginDictation(QString(), 1.0); }

void MainWindow::dictateFile(const QString& file, double speed) { beginDictation(file, speed); }

void MainWindow::beginDictation(const QString& file, double speed) {
    if (isBusy()) return warnBusy();
    if (!hasModel()) {
        showError(tr("Open a model before dictating (File › Open model)."));
        return;
    }
    m_dictationView->prepare();
    QString journalProblem;
    DictationRequest request = m_dictation.begin(m_engineSettings, file, speed, &journalProblem);
    request.ticket = m_controls->newJob();
    if (!journalProblem.isEmpty())
        m_messageBar->showMessage(MessageBar::Kind::Warning, tr("Dictated text is not journaled: %1").arg(journalProblem));
    m_status->setText(tr("Starting dictation…"));
    paintState();
    emit dictationRequested(request, m_engineSettings, journalPath());
}

void MainWindow::stopDictation() {
    if (state() != State::Dictating || !m_dictation.stop()) return;
    m_status->setText(tr("Stopping: transcribing the words already spoken…"));
    paintState();
}

void MainWindow::offerRecovery(bool tellIfNone) { m_recovery->offer(tellIfNone); }

bool MainWindow::restoreJournal() {
    if (!hasJournalToRestore()) return false;
    keepingScroll([&] { m_recovery->restore(); });  // the restored rows follow the view if it was at the end
    paintState();
    return true;
}

bool MainWindow::discardJournal() { return m_recovery->discard(); }

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

QString MainWindow::aboutText() const {
    return AboutBox::text(hasModel() ? m_jobs->modelPath() : QString(), m_cachePanel->metrics().backend);
}

void MainWindow::showAbout() { AboutBox::exec(aboutText(), windowIcon(), this); }

// ---- window events -------------------------------------------------------------------------------

void MainWindow::closeEvent(QCloseEvent* event) {
    m_settings->setValue("window/geometry", saveGeometry());
    m_settings->setValue("window/state", saveState());
    if (state() == State::Transcribing) m_controls->cancel();
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
    if (OpenDialogs::looksLikeModel(path)) openModel(path);
    else openAudio(path);
    if (urls.size() > 1)
        m_messageBar->showMessage(MessageBar::Kind::Information,
                                  tr("One file at a time: %1 was opened, the other %n file(s) were not.", nullptr,
                                     int(urls.size() - 1))
                                      .arg(QFileInfo(path).fileName()));
}

} // namespace hearsay::ui
