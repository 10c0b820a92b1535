// The input level meter: a horizontal bar of the RMS level (dBFS, -60 to 0) with a tick at the
// peak, green, then amber and red near full scale. Paints the InputLevel it is given.
#pragma once

#include "core/audio/level_meter.h"

#include <QWidget>

namespace hearsay::ui {

class LevelMeterBar : public QWidget {
    Q_OBJECT
public:
    explicit LevelMeterBar(QWidget* parent = nullptr);

    void setLevel(const InputLevel& level);
    const InputLevel& level() const { return m_level; }
    // Levels received that differ from the previous one (a meter that moves counts up).
    int changes() const { return m_changes; }

    QSize sizeHint() const override { return {160, 14}; }
    QSize minimumSizeHint() const override { return {60, 10}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    InputLevel m_level;
    int m_changes = 0;
};

} // namespace hearsay::ui
