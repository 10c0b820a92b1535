// Layout and formatting of the cache panel (see cache_panel.h).
#include "ui/cache_panel.h"

#include "ui/layer_bar_chart.h"
#include "ui/memory_bar.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

namespace hearsay::ui {
namespace {

QString exactBytes(size_t bytes) { return QObject::tr("%1 bytes").arg(QLocale::c().toString(qulonglong(bytes))); }

QString stateText(bool on) { return on ? QObject::tr("on") : QObject::tr("off"); }

QString stateStyle(bool on) { return on ? "color: #2e7d32; font-weight: bold" : "color: #b23c17; font-weight: bold"; }

} // namespace

CachePanel::CachePanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);

    m_model = new QLabel(tr("No model loaded."), this);
    m_model->setObjectName("modelSummary");
    m_model->setWordWrap(true);
    m_model->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_model);

    auto* cacheBox = new QGroupBox(tr("Key/value caches"), this);
    auto* cacheGrid = new QGridLayout(cacheBox);
    cacheGrid->setColumnStretch(1, 1);
    int row = 0;
    m_backend = addRow(cacheGrid, row++, tr("Backend"), "backend");
    m_memory = addRow(cacheGrid, row, tr("Memory"), "deviceMemory");
    m_memoryName = qobject_cast<QLabel*>(cacheGrid->itemAtPosition(row++, 0)->widget());
    m_memoryBar = new MemoryBar(cacheBox);
    m_memoryBar->setObjectName("memoryBar");
    cacheGrid->addWidget(m_memoryBar, row++, 0, 1, 2);
    m_weights = addRow(cacheGrid, row++, tr("Weights"), "weightBytes");
    m_selfState = addRow(cacheGrid, row++, tr("Self-attention"), "selfCacheState");
    m_selfAllocated = addRow(cacheGrid, row++, tr("  allocated"), "selfAllocated");
    m_selfInUse = addRow(cacheGrid, row++, tr("  in use"), "selfInUse");
    m_positions = addRow(cacheGrid, row++, tr("  positions"), "selfPositions");
    m_crossState = addRow(cacheGrid, row++, tr("Cross-attention"), "crossCacheState");
    m_crossAllocated = addRow(cacheGrid, row++, tr("  allocated"), "crossAllocated");
    m_crossInUse = addRow(cacheGrid, row++, tr("  in use"), "crossInUse");
    m_chart = new LayerBarChart(cacheBox);
    m_chart->setObjectName("layerChart");
    m_chart->setToolTip(tr("K + V bytes per decoder layer: pale bars allocated, dark bars in use"));
    cacheGrid->addWidget(m_chart, row++, 0, 1, 2);
    layout->addWidget(cacheBox);

    auto* speedBox = new QGroupBox(tr("Speed"), this);
    auto* speedGrid = new QGridLayout(speedBox);
    speedGrid->setColumnStretch(1, 1);
    row = 0;
    m_encoderMs = addRow(speedGrid, row++, tr("Encoder"), "encoderMs");
    m_encoderMs->setToolTip(tr("Encoder and cross-attention projection of the latest 30-second window"));
    m_decodeMs = addRow(speedGrid, row++, tr("Decode"), "decodeMsPerToken");
    m_decodeMs->setToolTip(tr("Decoder time per step (one token for every beam)"));
    m_tokensPerSecond = addRow(speedGrid, row++, tr("Tokens/s"), "tokensPerSecond");
    m_tokensPerSecond->setToolTip(tr("Decoder steps per second of decoding time"));
    m_realTimeFactor = addRow(speedGrid, row++, tr("Real-time factor"), "realTimeFactor");
    m_realTimeFactor->setToolTip(tr("Wall time divided by the audio duration transcribed (below 1: faster than real time)"));
    m_windows = addRow(speedGrid, row++, tr("Windows"), "windows");
    m_precision = addRow(speedGrid, row++, tr("Precision"), "precision");
    m_precision->setToolTip(tr("The precision of the matrix products (the CPU backend: always fp32)"));
    m_stepGraphs = addRow(speedGrid, row++, tr("Step graphs"), "stepGraphs");
    m_stepGraphs->setToolTip(tr("Decoder steps recorded (once per shape) and replayed (one per token step) "
                                "in the current or last transcription; off: every step runs eagerly"));
    layout->addWidget(speedBox);
    layout->addStretch(1);

    setMetrics({});
}

QLabel* CachePanel::addRow(QGridLayout* grid, int row, const QString& name, const QString& objectName) {
    auto* label = new QLabel(name, this);
    auto* value = new QLabel(this);
    value->setObjectName(objectName);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    grid->addWidget(label, row, 0);
    grid->addWidget(value, row, 1);
    return value;
}

void CachePanel::setDeviceMemory(const DeviceMemory& memory) {
    m_metrics.cache.device = memory;
    showMemory();
}

void CachePanel::showMemory() {
    const DeviceMemory& device = m_metrics.cache.device;
    m_memoryName->setText(!device.known ? tr("Memory") : device.gpu ? tr("GPU memory") : tr("System memory"));
    // A GPU's name goes on a second line ("GPU 0 (NVIDIA H100 80GB HBM3)" shows the name alone;
    // the index is in the tooltip); system RAM is named by the row already.
    m_memoryDevice = QString::fromStdString(device.name);
    if (device.gpu && m_memoryDevice.endsWith(')') && m_memoryDevice.contains(" ("))
        m_memoryDevice = m_memoryDevice.section(" (", 1).chopped(1);
    m_memory->setText(!device.known ? tr("–")
                      : tr("%1 free of %2").arg(formatBytes(device.freeBytes), formatBytes(device.totalBytes)) +
                            (device.gpu ? "\n" + m_memoryDevice : QString()));
    const size_t cacheBytes = m_metrics.cache.selfAllocated + m_metrics.cache.crossAllocated;
    m_memoryBar->setMemory(device, cacheBytes);
    const QString memoryTip =
        device.known ? tr("%1: %2 free of %3 (%4 % in use); the K/V caches take %5 of it (dark part of the bar)")
                           .arg(QString::fromStdString(device.name), exactBytes(device.freeBytes),
                                exactBytes(device.totalBytes))
                           .arg(100.0 * m_memoryBar->usedFraction(), 0, 'f', 1)
                           .arg(formatBytes(cacheBytes))
                     : tr("The backend cannot tell its free memory");
    m_memoryBar->setToolTip(memoryTip);
    m_memory->setToolTip(memoryTip);
}

QString CachePanel::memoryText() const {
    const DeviceMemory& device = m_metrics.cache.device;
    if (!device.known) return QString();
    const QString figures = m_memory->text().section('\n', 0, 0);
    if (!device.gpu) return tr("%1: %2").arg(m_memoryName->text(), figures);
    return tr("%1: %2 (%3)").arg(m_memoryName->text(), figures, m_memoryDevice);
}

void CachePanel::setModel(const ModelSummary& model) {
    const WhisperConfig& c = model.config;
    m_model->setText(tr("<b>%1</b><br>%2, %3<br>width %4, %5 encoder / %6 decoder layers, %7 heads, %8 mel bins<br>"
                        "weights %9 MiB")
                         .arg(model.path.section('/', -1).toHtmlEscaped(), model.format,
                              model.multilingual ? tr("multilingual (%1 languages)").arg(model.languageCount)
                                                 : tr("English-only"))
                         .arg(c.nAudioState)
                         .arg(c.nAudioLayer)
                         .arg(c.nTextLayer)
                         .arg(c.nAudioHead)
                         .arg(c.nMels)
                         .arg(model.weightMiB, 0, 'f', 1));
    m_model->setToolTip(model.path);
}

void CachePanel::setMetrics(const EngineMetrics& m) {
    m_metrics = m;
    const bool session = !m.cache.layers.empty();
    m_backend->setText(m.backend.isEmpty() ? tr("–") : m.backend);
    m_weights->setText(m.weightBytes > 0 ? formatBytes(m.weightBytes) : tr("–"));
    m_weights->setToolTip(m.weightBytes > 0
                              ? tr("%1: the model's weights on the backend, uploaded once per backend and precision "
                                   "and shared by every session (%2 weight buffers made on this backend so far)")
                                    .arg(exactBytes(m.weightBytes))
                                    .arg(m.weightUploads)
                              : QString());
    m_selfState->setText(session ? stateText(m.selfCache) : tr("–"));
    m_selfState->setStyleSheet(session ? stateStyle(m.selfCache) : QString());
    m_crossState->setText(session ? stateText(m.crossCache) : tr("–"));
    m_crossState->setStyleSheet(session ? stateStyle(m.crossCache) : QString());

    m_selfAllocated->setText(formatBytes(m.cache.selfAllocated));
    m_selfAllocated->setToolTip(tr("%1 for %2 layers × %3 beams × 448 positions × K and V")
                                    .arg(exactBytes(m.cache.selfAllocated))
                                    .arg(m.cache.layers.size())
                                    .arg(m.maxBeams));
    m_selfInUse->setText(formatBytes(m.cache.selfInUse));
    m_selfInUse->setToolTip(exactBytes(m.cache.selfInUse));
    m_positions->setText(session ? tr("%1 in %2 beam(s) of %3").arg(m.cache.positions).arg(m.cache.beams).arg(m.maxBeams)
                                 : tr("–"));
    m_crossAllocated->setText(formatBytes(m.cache.crossAllocated));
    m_crossAllocated->setToolTip(exactBytes(m.cache.crossAllocated));
    m_crossInUse->setText(formatBytes(m.cache.crossInUse));
    m_crossInUse->setToolTip(exactBytes(m.cache.crossInUse));
    m_chart->setLayers(m.cache.layers);

    showMemory();

    const bool measured = m.windows > 0;
    m_encoderMs->setText(measured ? tr("%1 ms").arg(m.lastEncoderMs, 0, 'f', 1) : tr("–"));
    m_decodeMs->setText(m.decodeCalls > 0 ? tr("%1 ms/token").arg(m.decodeMsPerToken(), 0, 'f', 2) : tr("–"));
    m_tokensPerSecond->setText(m.decodeCalls > 0 ? QString::number(m.tokensPerSecond(), 'f', 1) : tr("–"));
    m_realTimeFactor->setText(m.audioSeconds > 0.0 ? QString::number(m.realTimeFactor(), 'f', 3) : tr("–"));
    m_windows->setText(measured ? QString::number(m.windows) : tr("–"));
    m_precision->setText(m.precision.isEmpty() ? tr("–") : m.precision);
    m_stepGraphs->setText(!session      ? tr("–")
                          : m.stepGraphs ? tr("%1 recorded, %2 replayed").arg(m.stepRecordings).arg(m.stepReplays)
                                         : tr("off"));
}

} // namespace hearsay::ui
