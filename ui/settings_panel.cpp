// Widgets of the settings panel (see settings_panel.h).
#include "ui/settings_panel.h"

#include "core/decoding/language_detection.h"
#include "core/text/tokenizer.h"
#include "ui/vocabulary_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

namespace hearsay::ui {
namespace {

QString languageLabel(const Language& language) {
    QString name = QString::fromUtf8(language.name.data(), qsizetype(language.name.size()));
    if (!name.isEmpty()) name[0] = name[0].toUpper();
    return QString("%1 (%2)").arg(name, QString::fromUtf8(language.code.data(), qsizetype(language.code.size())));
}

} // namespace

SettingsPanel::SettingsPanel(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(8, 8, 8, 8);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_backend = new QComboBox(this);
    m_backend->setObjectName("backend");
    m_backend->addItem(tr("Automatic"), "auto");
    m_backend->addItem(tr("CPU"), "cpu");
    m_backend->addItem(tr("CUDA (NVIDIA GPU)"), "cuda");
    m_backend->setToolTip(tr("Automatic uses CUDA when this build has it and a GPU is present. "
                             "Applies when the engine is next idle."));
    form->addRow(tr("&Backend"), m_backend);

    m_precision = new QComboBox(this);
    m_precision->setObjectName("precision");
    m_precision->addItem(tr("FP16 (half weights, tensor cores)"), "fp16");
    m_precision->addItem(tr("FP32 (exact)"), "fp32");
    form->addRow(tr("&Precision"), m_precision);

    m_threads = new QSpinBox(this);
    m_threads->setObjectName("threads");
    m_threads->setRange(0, 256);
    m_threads->setSpecialValueText(tr("All cores (%1)").arg(QThread::idealThreadCount()));
    m_threads->setToolTip(tr("CPU worker threads. Applies when the engine is next idle."));
    form->addRow(tr("&Threads"), m_threads);

    m_language = new QComboBox(this);
    m_language->setObjectName("language");
    form->addRow(tr("&Language"), m_language);

    m_detectAmong = new QLineEdit(this);
    m_detectAmong->setObjectName("detectAmong");
    m_detectAmong->setPlaceholderText(tr("any language"));
    m_detectAmong->setToolTip(tr("With Auto-detect: the languages you speak (codes or names, e.g. \"en, de, fr\"). "
                                 "Detection then picks the most likely of these."));
    form->addRow(tr("Detect &among"), m_detectAmong);
    fillLanguages(int(whisperLanguages().size()), true);

    m_task = new QComboBox(this);
    m_task->setObjectName("task");
    m_task->addItem(tr("Transcribe"), false);
    m_task->addItem(tr("Translate to English"), true);
    form->addRow(tr("T&ask"), m_task);

    m_beamSize = new QSpinBox(this);
    m_beamSize->setObjectName("beamSize");
    m_beamSize->setRange(1, EngineSettings::kMaxBeamSize);
    m_beamSize->setSpecialValueText(tr("1 (greedy)"));
    m_beamSize->setToolTip(tr("Beams of beam search at temperature 0. The self-attention cache holds "
                              "max(beam size, %1) rows: fallback temperatures sample %1 candidates.")
                               .arg(EngineSettings::kBestOf));
    form->addRow(tr("Beam si&ze"), m_beamSize);
    m_fallback = new QCheckBox(tr("Retry doubtful windows"), this);
    m_fallback->setObjectName("temperatureFallback");
    m_fallback->setToolTip(tr("On (as OpenAI's Whisper): a window whose text repeats itself or is improbable is "
                              "decoded again at temperatures 0.2, 0.4 … 1.0, %1 samples each, and the best is kept. "
                              "Off: the first text stays, which is faster on audio the model is unsure of. "
                              "Files only; dictation never retries.").arg(EngineSettings::kBestOf));
    form->addRow(tr("Fallback"), m_fallback);

    m_selfCache = new QCheckBox(tr("Self-attention K/V cache"), this);
    m_selfCache->setObjectName("selfCacheSwitch");
    m_selfCache->setToolTip(tr("Off: every decoder step re-runs the decoder over the whole token sequence. "
                               "Applies at the next decoder step, even mid-window."));
    m_crossCache = new QCheckBox(tr("Cross-attention K/V cache"), this);
    m_crossCache->setObjectName("crossCacheSwitch");
    m_crossCache->setToolTip(tr("Off: every decoder step re-projects the encoder output. "
                                "Applies at the next decoder step, even mid-window."));
    form->addRow(tr("Caches"), m_selfCache);
    form->addRow(QString(), m_crossCache);

    m_stepGraphs = new QCheckBox(tr("Decode step graphs"), this);
    m_stepGraphs->setObjectName("stepGraphsSwitch");
    m_stepGraphs->setToolTip(tr("On: the decoder step is recorded once per shape (beams, cache switches) and "
                                "replayed for every token: a CUDA graph on the GPU, an op tape on the CPU. "
                                "Needs the self-attention cache. Off: every op of every step runs eagerly. "
                                "Applies at the next decoder step, even mid-window (turned on, each shape "
                                "runs once eagerly, then is recorded)."));
    form->addRow(tr("Graphs"), m_stepGraphs);

    m_prompt = new QLineEdit(this);
    m_prompt->setObjectName("initialPrompt");
    m_prompt->setPlaceholderText(tr("Names, spelling, style…"));
    m_prompt->setToolTip(tr("Text given to the model as context before the first window"));
    form->addRow(tr("Initial &prompt"), m_prompt);

    m_inputDevice = new QComboBox(this);
    m_inputDevice->setObjectName("inputDevice");
    m_inputDevice->addItem(tr("Default input"), QString());
    m_inputDevice->setToolTip(tr("The microphone dictation listens to (PortAudio's input devices). Applies at the "
                                 "next Record."));
    form->addRow(tr("&Input device"), m_inputDevice);

    m_step = new QDoubleSpinBox(this);
    m_step->setObjectName("streamingStep");
    m_step->setRange(TranscriptionRequest::kMinStepSeconds, TranscriptionRequest::kMaxStepSeconds);  // core's one range
    m_step->setSingleStep(0.1);
    m_step->setDecimals(2);
    m_step->setSuffix(tr(" s"));
    m_step->setToolTip(tr("Dictation decodes the window every time this much new audio has arrived: shorter steps "
                          "show text sooner and cost more. Applies at the next Record."));
    form->addRow(tr("Streaming &step"), m_step);

    m_commit = new QComboBox(this);
    m_commit->setObjectName("commitPolicy");
    m_commit->addItem(tr("As the words settle"), QStringLiteral("agreement"));
    m_commit->addItem(tr("As the words are heard"), QStringLiteral("alignatt"));
    m_commit->addItem(tr("When I pause"), QStringLiteral("utterance"));
    m_commit->setToolTip(tr("When dictated text becomes final (black, journaled, typed into other applications). As the "
                            "words settle: once two decodes agree on them. As the words are heard: once the model's "
                            "attention has moved past them (sooner, a little less accurate). When I pause: only at "
                            "each pause, decoded over the whole utterance (as accurate as a file). Applies at the next "
                            "Record."));
    form->addRow(tr("&Final text"), m_commit);

    auto* vocabulary = new QPushButton(tr("Vocabulary and replacements…"), this);
    vocabulary->setObjectName("vocabularyButton");
    vocabulary->setToolTip(tr("Words and names the model should spell as you do, and rules that rewrite final text "
                              "(\"hear say => Hearsay\"). Applies at the next Record."));
    connect(vocabulary, &QPushButton::clicked, this, [this] {
        VocabularyDialog dialog(m_vocabularyText, m_replacementsText, m_spokenCommands, this);
        if (dialog.exec() != QDialog::Accepted) return;
        m_vocabularyText = dialog.vocabulary();
        m_replacementsText = dialog.replacements();
        m_spokenCommands = dialog.spokenCommands();
        emitChanged();
    });
    form->addRow(tr("Words"), vocabulary);

    m_vadThreshold = new QDoubleSpinBox(this);
    m_vadThreshold->setObjectName("vadThreshold");
    m_vadThreshold->setRange(0.05, 0.95);
    m_vadThreshold->setSingleStep(0.05);
    m_vadThreshold->setDecimals(2);
    m_vadThreshold->setToolTip(tr("Silero VAD speech probability from which audio counts as speech; raise it in a "
                                  "noisy room. Applies at the next Record."));
    form->addRow(tr("&VAD threshold"), m_vadThreshold);

    m_tentative = new QCheckBox(tr("Show tentative text"), this);
    m_tentative->setObjectName("tentativeSwitch");
    m_tentative->setToolTip(tr("Show the words not yet committed in grey italics while dictating. Applies at the "
                               "next Record."));
    form->addRow(tr("Dictation"), m_tentative);

    auto* note = new QLabel(tr("Cache and step graph switches take effect at the next decoder step, even in the "
                               "middle of a window. The other settings apply to the next file (backend, precision, "
                               "threads and beam size as soon as the engine is idle)."),
                            this);
    note->setWordWrap(true);
    note->setEnabled(false);
    form->addRow(note);

    auto changed = [this] { emitChanged(); };
    connect(m_backend, &QComboBox::currentIndexChanged, this, [this] {
        updatePrecisionToolTip();
        emitChanged();
    });
    connect(m_precision, &QComboBox::currentIndexChanged, this, changed);
    connect(m_stepGraphs, &QCheckBox::toggled, this, changed);
    connect(m_threads, &QSpinBox::valueChanged, this, changed);
    connect(m_language, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_updating && m_language->isEnabled()) m_wantedLanguage = m_language->currentData().toString();
        m_detectAmong->setEnabled(m_language->isEnabled() && m_language->currentData().toString().isEmpty());
        emitChanged();
    });
    connect(m_task, &QComboBox::currentIndexChanged, this, changed);
    connect(m_beamSize, &QSpinBox::valueChanged, this, changed);
    connect(m_fallback, &QCheckBox::toggled, this, changed);
    connect(m_selfCache, &QCheckBox::toggled, this, changed);
    connect(m_crossCache, &QCheckBox::toggled, this, changed);
    connect(m_prompt, &QLineEdit::editingFinished, this, changed);
    connect(m_detectAmong, &QLineEdit::editingFinished, this, [this] {
        // A list with an unknown language is refused where it is typed.
        const QString list = m_detectAmong->text().trimmed();
        auto codes = list.isEmpty() ? Result<std::vector<std::string>>(std::vector<std::string>{})
                                    : parseLanguageList(list.toStdString());
        m_detectAmong->setStyleSheet(codes ? QString() : QStringLiteral("background: #fde0e0"));
        m_detectAmong->setToolTip(codes ? tr("With Auto-detect: the languages you speak (codes or names, e.g. \"en, de, "
                                             "fr\"). Detection then picks the most likely of these.")
                                        : QString::fromStdString(codes.message()));
        if (codes) emitChanged();
    });
    connect(m_inputDevice, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_updating) m_wantedDevice = m_inputDevice->currentData().toString();
        emitChanged();
    });
    connect(m_step, &QDoubleSpinBox::valueChanged, this, changed);
    connect(m_vadThreshold, &QDoubleSpinBox::valueChanged, this, changed);
    connect(m_commit, &QComboBox::currentIndexChanged, this, changed);
    connect(m_tentative, &QCheckBox::toggled, this, changed);

    setSettings({});
}

void SettingsPanel::fillLanguages(int count, bool multilingual) {
    const bool wasUpdating = m_updating;
    m_updating = true;
    m_language->clear();
    if (!multilingual) {
        m_language->addItem(tr("English only"), QString());
        m_language->setToolTip(tr("This model is English-only: it has no language tokens."));
        m_language->setEnabled(false);
    } else {
        m_language->addItem(tr("Auto-detect"), QString());
        m_language->setToolTip(tr("Auto-detect listens to the first 30 seconds. Applies to the next file."));
        const auto& languages = whisperLanguages();
        for (int i = 0; i < count && i < int(languages.size()); ++i) {
            const Language& l = languages[size_t(i)];
            m_language->addItem(languageLabel(l), QString::fromUtf8(l.code.data(), qsizetype(l.code.size())));
        }
        m_language->setEnabled(true);
        const int index = m_language->findData(m_wantedLanguage);
        m_language->setCurrentIndex(index >= 0 ? index : 0);
    }
    m_detectAmong->setEnabled(multilingual && m_language->currentData().toString().isEmpty());
    m_updating = wasUpdating;
}

void SettingsPanel::setBackendInUse(BackendKind backend) {
    m_cpuInUse = backend == BackendKind::Cpu;
    updatePrecisionToolTip();
}

void SettingsPanel::setInputDevices(const InputDeviceList& devices, QString* missing) {
    const bool wasUpdating = m_updating;
    m_updating = true;
    m_inputDevice->clear();
    m_inputDevice->addItem(tr("Default input"), QString());
    bool found = m_wantedDevice.isEmpty();
    for (const InputDeviceInfo& d : devices) {
        const QString id = QString::fromStdString(d.id());
        QString label = id;
        if (d.isDefault) label += tr(" (default)");
        m_inputDevice->addItem(label, id);
        m_inputDevice->setItemData(m_inputDevice->count() - 1, QString::fromStdString(d.describe()), Qt::ToolTipRole);
        found = found || id == m_wantedDevice;
    }
    if (!found) m_inputDevice->addItem(tr("%1 (not found)").arg(m_wantedDevice), m_wantedDevice);
    m_inputDevice->setCurrentIndex(std::max(0, m_inputDevice->findData(m_wantedDevice)));
    if (missing) *missing = found ? QString() : m_wantedDevice;
    m_updating = wasUpdating;
}

void SettingsPanel::updatePrecisionToolTip() {
    const bool cpu = m_backend->currentData().toString() == "cpu" || (m_cpuInUse && m_backend->currentData().toString() == "auto");
    m_precision->setToolTip(
        cpu ? tr("CPU backend: FP16 keeps the cross-attention cache in half precision (half its memory, faster "
                 "decoding); FP32 keeps it in float32, for exact comparisons. The CPU computes in float32 either "
                 "way. Applies when the engine is next idle.")
            : tr("CUDA backend: FP16 keeps the weights in half precision and runs the matrix products on "
                 "tensor cores (half the weight memory, faster); FP32 is exact, for comparisons. On the CPU "
                 "backend it chooses the cross-attention cache's precision. Applies when the engine is next "
                 "idle: the weights are uploaded again."));
}

void SettingsPanel::setModel(const ModelSummary& model) {
    fillLanguages(model.languageCount, model.multilingual);
}

void SettingsPanel::setSettings(const EngineSettings& s) {
    m_updating = true;
    m_backend->setCurrentIndex(std::max(0, m_backend->findData(s.backend)));
    m_precision->setCurrentIndex(std::max(0, m_precision->findData(s.precision)));
    updatePrecisionToolTip();
    m_threads->setValue(s.threads);
    m_wantedLanguage = s.language;
    if (m_language->isEnabled()) {
        const int index = m_language->findData(s.language);
        m_language->setCurrentIndex(index >= 0 ? index : 0);
    }
    m_task->setCurrentIndex(s.translate ? 1 : 0);
    m_beamSize->setValue(s.beamSize);
    m_fallback->setChecked(s.temperatureFallback);
    m_selfCache->setChecked(s.selfCache);
    m_crossCache->setChecked(s.crossCache);
    m_stepGraphs->setChecked(s.stepGraphs);
    m_prompt->setText(s.initialPrompt);
    m_detectAmong->setText(s.detectAmong);
    m_wantedDevice = s.inputDevice;
    if (m_inputDevice->findData(s.inputDevice) < 0) m_inputDevice->addItem(s.inputDevice, s.inputDevice);
    m_inputDevice->setCurrentIndex(std::max(0, m_inputDevice->findData(s.inputDevice)));
    m_step->setValue(s.stepSeconds);
    m_vadThreshold->setValue(s.vadThreshold);
    m_commit->setCurrentIndex(std::max(0, m_commit->findData(s.commit)));
    m_vocabularyText = s.vocabulary;
    m_replacementsText = s.replacements;
    m_spokenCommands = s.spokenCommands;
    m_tentative->setChecked(s.showTentative);
    m_updating = false;
}

EngineSettings SettingsPanel::settings() const {
    EngineSettings s;
    s.backend = m_backend->currentData().toString();
    s.threads = m_threads->value();
    // A multilingual model: the language shown; an English-only one: the choice kept for the next model.
    s.language = m_language->isEnabled() ? m_language->currentData().toString() : m_wantedLanguage;
    s.translate = m_task->currentData().toBool();
    s.beamSize = m_beamSize->value();
    s.temperatureFallback = m_fallback->isChecked();
    s.selfCache = m_selfCache->isChecked();
    s.crossCache = m_crossCache->isChecked();
    s.precision = m_precision->currentData().toString();
    s.stepGraphs = m_stepGraphs->isChecked();
    s.initialPrompt = m_prompt->text();
    s.detectAmong = m_detectAmong->text().trimmed();
    s.inputDevice = m_inputDevice->currentData().toString();
    s.stepSeconds = m_step->value();
    s.vadThreshold = m_vadThreshold->value();
    s.commit = m_commit->currentData().toString();
    s.vocabulary = m_vocabularyText;
    s.replacements = m_replacementsText;
    s.spokenCommands = m_spokenCommands;
    s.showTentative = m_tentative->isChecked();
    return s;
}

void SettingsPanel::emitChanged() {
    if (m_updating) return;
    emit settingsChanged(settings());
}

} // namespace hearsay::ui
