// The settings panel: backend, threads, language, task, beam size, the two cache switches and
// the initial prompt. It edits an EngineSettings and says when it changed; the window decides
// when each change reaches the engine (switches at the next decoder step, the rest at the next
// window it can take them).
#pragma once

#include "ui/engine_settings.h"
#include "ui/worker_messages.h"

#include <QWidget>

class QCheckBox;
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

signals:
    void settingsChanged(const hearsay::ui::EngineSettings& settings);

private:
    void fillLanguages(int count, bool multilingual);
    void emitChanged();

    QComboBox* m_backend = nullptr;
    QSpinBox* m_threads = nullptr;
    QComboBox* m_language = nullptr;
    QComboBox* m_task = nullptr;
    QSpinBox* m_beamSize = nullptr;
    QCheckBox* m_selfCache = nullptr;
    QCheckBox* m_crossCache = nullptr;
    QLineEdit* m_prompt = nullptr;
    QString m_wantedLanguage;      // kept when the current model lacks it
    bool m_updating = false;
};

} // namespace hearsay::ui
