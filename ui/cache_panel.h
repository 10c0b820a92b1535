// The live panel of the engine: the model, the memory the engine allocates in (GPU or system RAM:
// free of total, with a bar), the K/V caches (self-attention allocated and in use,
// cross-attention, per layer as a bar chart, with the switches' state) and the speed figures
// (encoder ms, decode ms/token, tokens/s, real-time factor, precision, step graphs recorded and
// replayed). It only paints what it is given.
#pragma once

#include "ui/worker_messages.h"

#include <QWidget>

class QGridLayout;
class QLabel;

namespace hearsay::ui {

class LayerBarChart;
class MemoryBar;

class CachePanel : public QWidget {
    Q_OBJECT
public:
    explicit CachePanel(QWidget* parent = nullptr);

    void setModel(const ModelSummary& model);
    void setMetrics(const EngineMetrics& metrics);
    // A newer reading of the device's memory alone (polled between metrics).
    void setDeviceMemory(const DeviceMemory& memory);
    const EngineMetrics& metrics() const { return m_metrics; }
    LayerBarChart* chart() const { return m_chart; }
    MemoryBar* memoryBar() const { return m_memoryBar; }
    // "GPU memory: 3.10 GiB free of 79.6 GiB (NVIDIA H100 80GB HBM3)" or "System memory: …", as shown.
    QString memoryText() const;

private:
    QLabel* addRow(QGridLayout* grid, int row, const QString& name, const QString& objectName);
    void showMemory();

    EngineMetrics m_metrics;
    QLabel* m_model = nullptr;
    QLabel* m_backend = nullptr;
    QLabel* m_memoryName = nullptr;   // "GPU memory" or "System memory"
    QLabel* m_memory = nullptr;       // "3.10 GiB free of 79.6 GiB"
    QString m_memoryDevice;           // "NVIDIA H100 80GB HBM3" (GPUs only)
    MemoryBar* m_memoryBar = nullptr;
    QLabel* m_weights = nullptr;      // the engine's weights on the backend
    QLabel* m_selfState = nullptr;
    QLabel* m_selfAllocated = nullptr;
    QLabel* m_selfInUse = nullptr;
    QLabel* m_positions = nullptr;
    QLabel* m_crossState = nullptr;
    QLabel* m_crossAllocated = nullptr;
    QLabel* m_crossInUse = nullptr;
    QLabel* m_encoderMs = nullptr;
    QLabel* m_decodeMs = nullptr;
    QLabel* m_tokensPerSecond = nullptr;
    QLabel* m_realTimeFactor = nullptr;
    QLabel* m_windows = nullptr;
    QLabel* m_precision = nullptr;
    QLabel* m_stepGraphs = nullptr;
    LayerBarChart* m_chart = nullptr;
};

} // namespace hearsay::ui
