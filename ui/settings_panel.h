// The settings panel: backend, precision, threads, language, task, beam size, the two cache
// switches, the decode step graphs switch and the initial prompt. It edits an EngineSettings and says when it changed; the window decides
// when each change reaches the engine (switches at the next decoder step, the rest at the next
// window it can take them).
#pragma once

#include "ui/engine_settings.h"
#include "ui/worker_messages.h"

#include <QWidget>

class QCheckBox;
class QDoubleSpinBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace hearsay::ui {

class SettingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit SettingsPanel(QWidget* parent = nullptr);

    // Shows `settings` without emitting settingsChanged.
    void setSettings(const EngineSettings& settings);
    EngineSettings settings() const;
    // Restricts the language list to the model's (none for English-only models).
    void setModel(const ModelSummary& model);

    QCheckBox* selfCacheSwitch() const { return m_selfCache; }
    QCheckBox* crossCacheSwitch() const { return m_crossCache; }
    QComboBox* languageBox() const { return m_language; }
    QComboBox* backendBox() const { return m_backend; }
    QComboBox* precisionBox() const { return m_precision; }
    QCheckBox* stepGraphsSwitch() const { return m_stepGraphs; }
    QCheckBox* temperatureFallbackSwitch() const { return m_fallback; }
    QComboBox* inputDeviceBox() const { return m_inputDevice; }
    QDoubleSpinBox* stepBox() const { return m_step; }
    QDoubleSpinBox* vadThresholdBox() const { return m_vadThreshold; }
    QCheckBox* tentativeSwitch() const { return m_tentative; }
    // The input devices PortAudio lists (the default marked); a chosen device that is not among
    // them stays selected, marked "not found", and `missing` says which (empty when all is well).
    void setInputDevices(const InputDeviceList& devices, QString* missing = nullptr);
    // The backend the engine runs on now (from its metrics): the precision's tooltip says what it
    // does there (CPU: the cross-attention cache's precision), also when the choice is Automatic
    // and no GPU was found.
    // (Auto: none yet.)
    void setBackendInUse(hearsay::BackendKind backend);

signals:
    void settingsChanged(const hearsay::ui::EngineSettings& settings);

private:
    void fillLanguages(int count, bool multilingual);
    void emitChanged();
    // What the precision does on the backend in use: CUDA's weights and products, or the CPU's
    // cross-attention cache.
    void updatePrecisionToolTip();

    QComboBox* m_backend = nullptr;
    QComboBox* m_precision = nullptr;
    QSpinBox* m_threads = nullptr;
    QComboBox* m_language = nullptr;
    QComboBox* m_task = nullptr;
    QSpinBox* m_beamSize = nullptr;
    QCheckBox* m_selfCache = nullptr;
    QCheckBox* m_crossCache = nullptr;
    QCheckBox* m_stepGraphs = nullptr;
    QCheckBox* m_fallback = nullptr;
    QLineEdit* m_prompt = nullptr;
    QComboBox* m_inputDevice = nullptr;
    QDoubleSpinBox* m_step = nullptr;
    QComboBox* m_commit = nullptr;
    QLineEdit* m_detectAmong = nullptr;
    QString m_vocabularyText, m_replacementsText;  // edited in the vocabulary dialog
    bool m_spokenCommands = false;
    QDoubleSpinBox* m_vadThreshold = nullptr;
    QCheckBox* m_tentative = nullptr;
    QString m_wantedDevice;        // the saved choice, kept while it is not listed
    bool m_cpuInUse = false;       // the engine's backend is the CPU
    QString m_wantedLanguage;      // kept when the current model lacks it
    bool m_updating = false;
};

} // namespace hearsay::ui
