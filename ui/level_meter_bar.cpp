// Painting of the level meter (see level_meter_bar.h).
#include "ui/level_meter_bar.h"

#include <QPainter>

#include <algorithm>

namespace hearsay::ui {
namespace {

constexpr float kFloorDb = -60.0f;

double fraction(float linear) { return std::clamp((InputLevel::toDb(linear) - kFloorDb) / -kFloorDb, 0.0f, 1.0f); }

} // namespace

LevelMeterBar::LevelMeterBar(QWidget* parent) : QWidget(parent) {
    setObjectName("inputLevel");
    setToolTip(tr("Input level (RMS, with a tick at the peak), −60 to 0 dBFS"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void LevelMeterBar::setLevel(const InputLevel& level) {
    if (level.rms != m_level.rms || level.peak != m_level.peak) ++m_changes;
    m_level = level;
    setToolTip(tr("Input level: %1 dBFS RMS, peak %2 dBFS")
                   .arg(double(InputLevel::toDb(level.rms)), 0, 'f', 1)
                   .arg(double(InputLevel::toDb(level.peak)), 0, 'f', 1));
    update();
}

void LevelMeterBar::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QRectF r = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    p.fillRect(r, palette().base());
    const double rms = fraction(m_level.rms), peak = fraction(m_level.peak);
    const QColor colour = rms > 0.9 ? QColor(200, 40, 30) : rms > 0.75 ? QColor(230, 160, 20) : QColor(60, 170, 70);
    p.fillRect(QRectF(r.left(), r.top(), r.width() * rms, r.height()), colour);
    if (m_level.windows > 0) {
        p.setPen(QPen(palette().text().color(), 2));
        const double x = r.left() + r.width() * peak;
        p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
    }
    p.setPen(palette().mid().color());
    p.drawRect(r);
}

} // namespace hearsay::ui
