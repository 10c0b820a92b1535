// The main window: the transcript in the centre, the settings and cache panels as docks, file
// transcription with progress and Cancel. The engine runs on a worker thread owned here; this
// window only sends it requests and paints what it reports. What is not painting lives beside
// it: file jobs (FileJobController), dictation (DictationController, DictationView), recovery
// (JournalRecovery), and its parts are built in their own files (TranscriptPane, JobStatusBar,
// MainWindowActions, MainWindowDocks).
#pragma once

#include "core/transcript/transcript_export.h"
#include "ui/anywhere_settings.h"
#include "ui/dictation_controller.h"
#include "ui/engine_settings.h"
#include "ui/main_window_actions.h"
#include "ui/message_bar.h"
#include "ui/worker_messages.h"
#include "ui/worker_thread.h"

#include <QMainWindow>
#include <QSettings>

#include <functional>
#include <memory>

class QAction;
class QTableView;

namespace hearsay {
}

namespace hearsay::ui {

class CachePanel;
class DesktopPresence;
class DictateAnywhere;
class DictateAnywherePanel;
class DictationView;
class EngineControls;
class FileJobController;
class JobStatusBar;
class JournalRecovery;
class LevelMeterBar;
class LivePanel;
class RecoveryBar;
class SettingsPanel;
class TranscriptModel;
class TranscriptPane;
class TranscriptionWorker;
class WordPlayback;
class WordTimingsView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // Settings are read from and saved to `settings` (the application's QSettings when null).
    explicit MainWindow(std::unique_ptr<QSettings> settings = nullptr, QWidget* parent = nullptr);
    ~MainWindow() override;

    // The actions behind the menus, without their dialogs (also used by the command line and tests).
    void openModel(const QString& path);
    void openAudio(const QString& path);
    void cancelTranscription();
    // `subtitles`: SRT and VTT lines and cues (with word timings; File › Export asks for them).
    bool exportTranscript(const QString& path, ExportFormat format, const SubtitleOptions& subtitles = {});
    // Reopens the model of the last session, when there is one.
    void reopenLastModel();
    // Dictation from the input device chosen in the settings (Record), or from `file` played at
    // `speed` times real time as if it were a microphone (tests, demos). The text is appended to
    // the transcript.
    void startDictation();
    void dictateFile(const QString& file, double speed);
    // Stop: the audio already captured is transcribed and committed, then the window is idle.
    void stopDictation();
    // The text that runs which did not end normally left in the journal directory (JournalStore),
    // offered in the recovery bar at start and by File › Recover last dictation…; `tellIfNone`:
    // say so when there is none.
    void offerRecovery(bool tellIfNone = false);
    // Restores that text into the transcript (appended, oldest run first) and removes it from
    // the disk; false when there was none.
    bool restoreJournal();
    // Removes that text from the disk without restoring it; false when there was none.
    bool discardJournal();
    bool hasJournalToRestore() const { return !m_dictation.leftovers().empty(); }
    // This window's own journal (in JournalStore's directory), made at its first dictation;
    // empty before.
    QString journalPath() const { return m_dictation.journalPath(); }
    // The model manager (File > Models…); `introduction` heads it (the first start's words).
    void showModelManager(const QString& introduction = {});

    bool isBusy() const { return state() != State::Idle; }
    bool isDictating() const { return state() == State::Dictating || state() == State::Stopping; }
    bool isStopping() const { return state() == State::Stopping; }
    bool hasModel() const;
    TranscriptModel* transcriptModel() const { return m_transcript; }
    SettingsPanel* settingsPanel() const { return m_settingsPanel; }
    CachePanel* cachePanel() const { return m_cachePanel; }
    MessageBar* messageBar() const { return m_messageBar; }
    RecoveryBar* recoveryBar() const { return m_recoveryBar; }
    LivePanel* livePanel() const { return m_livePanel; }
    LevelMeterBar* levelMeter() const { return m_levelMeter; }
    DictateAnywhere* dictateAnywhere() const { return m_anywhere; }
    DictateAnywherePanel* dictateAnywherePanel() const { return m_anywherePanel; }
    DesktopPresence* desktopPresence() const { return m_presence; }  // the tray icon and the dictation indicator
    QAction* recordAction() const { return m_actions.record; }
    QTableView* transcriptView() const { return m_view; }
    // View › Word timings: the action, the view and its playback.
    QAction* wordTimingsAction() const { return m_actions.wordTimings; }
    WordTimingsView* wordTimingsView() const { return m_words; }
    WordPlayback* wordPlayback() const { return m_playback; }
    // The summary of the last dictation run, as the streaming session returned it.
    const StreamingSummary& lastDictationSummary() const { return m_dictation.lastSummary(); }
    // Help › About: version, model, backend, licenses.
    QString aboutText() const;

signals:
    void modelLoadFinished(bool ok);
    void transcriptionEnded(bool ok);
    void metricsShown(const hearsay::ui::EngineMetrics& metrics);
    void dictationStarted();
    // The run is over (after Stop, everything captured has been committed and shown); ok: no error.
    void dictationEnded(bool ok);
    // Each committed piece of dictated text once it is shown (for --print-committed and tests).
    void committedShown(const QString& text);
    void stepShown(const hearsay::StreamingStep& step);
    // For the tray and the indicator (ui/desktop_presence.h): the state (isBusy(), isDictating()...)
    // may read differently; the tentative words and the input level as they are shown.
    void stateChanged();
    void tentativeShown(const QString& text);
    void inputLevelShown(const hearsay::InputLevel& level);

    // Requests to the worker (queued; connected in the constructor, nothing else listens).
    void applySettingsRequested(const hearsay::ui::EngineSettings& settings);
    void inputDevicesRequested();
    void dictationRequested(const hearsay::ui::DictationRequest& request, const hearsay::ui::EngineSettings& settings,
                            const QString& journal);
    void deviceMemoryRequested();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    enum class State { Idle, LoadingModel, Transcribing, Dictating, Stopping };

    void createActions();
    void createDocks();
    // What runs: the file job's phase, else the dictation's (the window keeps no state of its own).
    State state() const;
    // Enables, labels and shows what the state allows.
    void paintState();
    void chooseModel();
    void chooseModelDirectory();
    void chooseAudio();
    void chooseExport();
    void clearTranscript();
    void applySettings(const EngineSettings& settings);
    void applyAnywhere(const AnywhereSettings& settings);
    void showError(const QString& text);
    void warnBusy();
    // The message with a "Use the CPU backend" button: it switches the settings to the CPU
    // (saved like any change) and then runs `retry`, if any.
    void offerCpuBackend(MessageBar::Kind kind, const QString& text, std::function<void()> retry);
    void useCpuBackend();

    // Reports painted here.
    void onModelLoaded(const ModelSummary& model);
    void onAudioOpened(const AudioSummary& audio);
    void onWarning(const EngineFailure& problem);
    void onMetrics(const EngineMetrics& metrics);
    void onInputDevices(const InputDeviceList& devices, const QString& error);
    void beginDictation(const QString& file, double speed);
    void toggleRecording();
    void showAbout();
    void updateCentre();
    // Runs `change` on the transcript, then scrolls to the end if the view was at the end before
    // (the user who scrolled up to read stays where he is).
    void keepingScroll(const std::function<void()>& change);

    std::unique_ptr<QSettings> m_settings;
    std::shared_ptr<EngineControls> m_controls;  // the worker's: Cancel and the switches reach a running job here
    DictationController m_dictation;            // the dictation runs and their journals
    EngineSettings m_engineSettings;

    // The engine's thread and its worker (deleted on that thread when it finishes).
    WorkerThread m_thread;
    TranscriptionWorker* m_worker = nullptr;

    TranscriptModel* m_transcript = nullptr;
    TranscriptPane* m_pane = nullptr;        // the centre: bars, Record, the transcript (its widgets below)
    FileJobController* m_jobs = nullptr;     // model loads and files with the worker
    JournalRecovery* m_recovery = nullptr;   // the text earlier runs left: offered, restored, discarded
    DictationView* m_dictationView = nullptr;  // a run's reports, painted
    QTableView* m_view = nullptr;
    MessageBar* m_messageBar = nullptr;
    RecoveryBar* m_recoveryBar = nullptr;
    SettingsPanel* m_settingsPanel = nullptr;
    CachePanel* m_cachePanel = nullptr;
    DictateAnywhere* m_anywhere = nullptr;           // the global shortcut and typing into other applications
    DictateAnywherePanel* m_anywherePanel = nullptr;
    JobStatusBar* m_status = nullptr;
    DesktopPresence* m_presence = nullptr;
    LivePanel* m_livePanel = nullptr;
    LevelMeterBar* m_levelMeter = nullptr;
    WordTimingsView* m_words = nullptr;
    WordPlayback* m_playback = nullptr;

    MainWindowActions m_actions;
};

} // namespace hearsay::ui
