// The live panel of a dictation: the figures of the latest streaming step as the engine reports
// them (self-attention K/V allocated and in use, cross-attention K/V, tokens/s, encoder ms,
// decode ms/token, real-time factor, latency of tentative and committed text) beside a chart of
// the last minutes. It only paints what it is given.
#pragma once

#include "core/streaming/streaming_events.h"

#include <QWidget>

class QGridLayout;
class QLabel;

namespace hearsay::ui {

class LiveChart;

class LivePanel : public QWidget {
    Q_OBJECT
public:
    explicit LivePanel(QWidget* parent = nullptr);

    void setStep(const StreamingStep& step);
    // The latency of the latest committed words (seconds, wall clock): from the end of each
    // word's audio to its first showing (tentative) and to its commit; empty lists leave the
    // figures as they are.
    void setLatency(const std::vector<double>& tentative, const std::vector<double>& commit);
    void clear();

    LiveChart* chart() const { return m_chart; }
    const StreamingStep& lastStep() const { return m_step; }
    int steps() const { return m_steps; }

private:
    QLabel* addFigure(QGridLayout* grid, int row, int column, const QString& name, const QString& objectName,
                      const QString& tip);

    StreamingStep m_step;
    int m_steps = 0;
    QLabel* m_selfAllocated = nullptr;
    QLabel* m_selfInUse = nullptr;
    QLabel* m_cross = nullptr;
    QLabel* m_switches = nullptr;
    QLabel* m_tokensPerSecond = nullptr;
    QLabel* m_encoderMs = nullptr;
    QLabel* m_msPerToken = nullptr;
    QLabel* m_realTimeFactor = nullptr;
    QLabel* m_tentativeLatency = nullptr;
    QLabel* m_commitLatency = nullptr;
    LiveChart* m_chart = nullptr;
};

// "12.3 MiB (12,910,592 bytes)"-style text of a byte count, as the live panel shows it.
QString liveBytesText(size_t bytes);

} // namespace hearsay::ui
