// Layout and formatting of the live panel (see live_panel.h).
#include "ui/live_panel.h"

#include "ui/live_chart.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>

#include <algorithm>

namespace hearsay::ui {

QString liveBytesText(size_t bytes) {
    const double mib = double(bytes) / (1024.0 * 1024.0);
    return QObject::tr("%1 MiB (%2 B)").arg(mib, 0, 'f', 2).arg(QLocale::c().toString(qulonglong(bytes)));
}

LivePanel::LivePanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(2);
    m_selfAllocated = addFigure(grid, 0, 0, tr("Self K/V allocated"), "liveSelfAllocated",
                                tr("Self-attention cache: bytes allocated (all layers, K and V) after the latest step"));
    m_selfInUse = addFigure(grid, 1, 0, tr("Self K/V in use"), "liveSelfInUse",
                            tr("Self-attention cache: bytes holding valid positions after the latest step"));
    m_cross = addFigure(grid, 2, 0, tr("Cross K/V"), "liveCrossInUse",
                        tr("Cross-attention cache: bytes holding the current window's keys and values"));
    m_switches = addFigure(grid, 3, 0, tr("Caches"), "liveSwitches", tr("The switches in effect during the latest step"));
    m_tokensPerSecond = addFigure(grid, 0, 2, tr("Tokens/s"), "liveTokensPerSecond",
                                  tr("Tokens sampled per second of decoding time in the latest step"));
    m_encoderMs = addFigure(grid, 1, 2, tr("Encoder"), "liveEncoderMs",
                            tr("Encoder and cross-attention projection of the latest step's window"));
    m_msPerToken = addFigure(grid, 2, 2, tr("Decode"), "liveMsPerToken", tr("Decoder time per sampled token"));
    m_realTimeFactor = addFigure(grid, 3, 2, tr("Real-time factor"), "liveRealTimeFactor",
                                 tr("Step wall time over the audio it advanced (below 1: keeping up)"));
    m_tentativeLatency = addFigure(grid, 4, 0, tr("Tentative latency"), "liveTentativeLatency",
                                   tr("Latest committed words: from the end of each word's audio to its first showing "
                                      "(largest of the words)"));
    m_commitLatency = addFigure(grid, 4, 2, tr("Commit latency"), "liveCommitLatency",
                                tr("Latest committed words: from the end of each word's audio to its commit "
                                   "(largest of the words)"));
    layout->addLayout(grid);
    m_chart = new LiveChart(this);
    layout->addWidget(m_chart, 1);
    clear();
}

QLabel* LivePanel::addFigure(QGridLayout* grid, int row, int column, const QString& name, const QString& objectName,
                             const QString& tip) {
    auto* label = new QLabel(name, this);
    auto* value = new QLabel(this);
    value->setObjectName(objectName);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setToolTip(tip);
    value->setToolTip(tip);
    grid->addWidget(label, row, column);
    grid->addWidget(value, row, column + 1);
    return value;
}

void LivePanel::setStep(const StreamingStep& step) {
    m_step = step;
    ++m_steps;
    m_selfAllocated->setText(liveBytesText(step.cache.selfAllocated));
    m_selfInUse->setText(liveBytesText(step.cache.selfInUse));
    m_cross->setText(liveBytesText(step.cache.crossInUse));
    m_switches->setText(tr("self %1, cross %2").arg(step.selfCache ? tr("on") : tr("off"), step.crossCache ? tr("on") : tr("off")));
    if (step.decoded) {
        m_tokensPerSecond->setText(QString::number(step.tokensPerSecond, 'f', 1));
        m_encoderMs->setText(tr("%1 ms").arg(step.encoderMs, 0, 'f', 1));
        m_msPerToken->setText(tr("%1 ms/token").arg(step.msPerToken, 0, 'f', 2));
    }
    m_realTimeFactor->setText(QString::number(step.realTimeFactor, 'f', 3));
    m_chart->addStep(step);
}

void LivePanel::setLatency(const std::vector<double>& tentative, const std::vector<double>& commit) {
    if (!tentative.empty())
        m_tentativeLatency->setText(tr("%1 s").arg(*std::max_element(tentative.begin(), tentative.end()), 0, 'f', 2));
    if (!commit.empty())
        m_commitLatency->setText(tr("%1 s").arg(*std::max_element(commit.begin(), commit.end()), 0, 'f', 2));
}

void LivePanel::clear() {
    m_step = {};
    m_steps = 0;
    for (QLabel* l : {m_selfAllocated, m_selfInUse, m_cross, m_switches, m_tokensPerSecond, m_encoderMs, m_msPerToken,
                      m_realTimeFactor, m_tentativeLatency, m_commitLatency})
        l->setText(QStringLiteral("—"));
    m_chart->clear();
}

} // namespace hearsay::ui
