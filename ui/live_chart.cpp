// Painting of the live chart (see live_chart.h).
#include "ui/live_chart.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace hearsay::ui {
namespace {

QString bytesLabel(double bytes) {
    if (bytes >= 1024.0 * 1024.0) return QString("%1 MiB").arg(bytes / (1024.0 * 1024.0), 0, 'f', 1);
    return QString("%1 KiB").arg(bytes / 1024.0, 0, 'f', 0);
}

} // namespace

LiveChart::LiveChart(QWidget* parent) : QWidget(parent) {
    setObjectName("liveChart");
    setToolTip(tr("The last %1 minutes of dictation: K/V cache bytes in use (blue) and decode ms per token "
                  "(orange); a dashed line marks where a cache switch took effect.")
                   .arg(int(kSpanSeconds / 60)));
}

void LiveChart::addStep(const StreamingStep& step) {
    if (m_haveSwitches && (step.selfCache != m_selfCache || step.crossCache != m_crossCache)) {
        QStringList changes;
        if (step.selfCache != m_selfCache) changes << (step.selfCache ? tr("self on") : tr("self off"));
        if (step.crossCache != m_crossCache) changes << (step.crossCache ? tr("cross on") : tr("cross off"));
        m_marks.push_back({step.streamSeconds, changes.join(", ")});
    }
    m_haveSwitches = true;
    m_selfCache = step.selfCache;
    m_crossCache = step.crossCache;
    m_points.push_back({step.streamSeconds, double(step.cache.selfInUse + step.cache.crossInUse),
                        step.decoded ? step.msPerToken : 0.0});
    dropOld();
    update();
}

void LiveChart::clear() {
    m_points.clear();
    m_marks.clear();
    m_haveSwitches = false;
    update();
}

void LiveChart::dropOld() {
    if (m_points.empty()) return;
    const double from = m_points.back().seconds - kSpanSeconds;
    while (!m_points.empty() && m_points.front().seconds < from) m_points.pop_front();
    while (!m_marks.empty() && m_marks.front().seconds < from) m_marks.pop_front();
}

void LiveChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.base());
    p.setPen(pal.mid().color());
    p.drawRect(rect().adjusted(0, 0, -1, -1));

    const QFontMetrics fm(font());
    const QRectF plot = QRectF(rect()).adjusted(4, fm.height() + 4, -4, -4);
    const QColor cacheColour(40, 110, 200), speedColour(230, 120, 20);
    if (m_points.empty()) {
        p.setPen(pal.placeholderText().color());
        p.drawText(rect(), Qt::AlignCenter, tr("Cache bytes and ms/token appear here while dictating"));
        return;
    }
    const double t1 = std::max(m_points.back().seconds, m_points.front().seconds + 1.0);
    const double t0 = std::max(m_points.front().seconds, t1 - kSpanSeconds);
    double maxBytes = 1.0, maxMs = 0.001;
    for (const Point& pt : m_points) {
        maxBytes = std::max(maxBytes, pt.cacheBytes);
        maxMs = std::max(maxMs, pt.msPerToken);
    }
    auto x = [&](double s) { return plot.left() + (s - t0) / (t1 - t0) * plot.width(); };
    auto y = [&](double v, double max) { return plot.bottom() - v / (max * 1.1) * plot.height(); };

    // Legend with each line's scale.
    p.setPen(cacheColour);
    p.drawText(QPointF(4, fm.ascent() + 2), tr("K/V in use ≤ %1").arg(bytesLabel(maxBytes * 1.1)));
    p.setPen(speedColour);
    const QString msText = tr("ms/token ≤ %1").arg(maxMs * 1.1, 0, 'f', 1);
    p.drawText(QPointF(width() - 4 - fm.horizontalAdvance(msText), fm.ascent() + 2), msText);

    for (const Mark& m : m_marks) {
        const double mx = x(m.seconds);
        p.setPen(QPen(pal.text().color(), 1, Qt::DashLine));
        p.drawLine(QPointF(mx, plot.top()), QPointF(mx, plot.bottom()));
        p.drawText(QPointF(std::min(mx + 3, plot.right() - fm.horizontalAdvance(m.label)), plot.top() + fm.ascent()), m.label);
    }
    auto line = [&](auto value, double max, const QColor& colour, bool skipZero) {
        QPainterPath path;
        bool open = false;
        for (const Point& pt : m_points) {
            const double v = value(pt);
            if (skipZero && v <= 0.0) {
                open = false;
                continue;
            }
            const QPointF at(x(pt.seconds), y(v, max));
            if (open) path.lineTo(at);
            else path.moveTo(at);
            open = true;
        }
        p.setPen(QPen(colour, 1.6));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setBrush(colour);
        p.setPen(Qt::NoPen);
        for (const Point& pt : m_points)
            if (!skipZero || value(pt) > 0.0) p.drawEllipse(QPointF(x(pt.seconds), y(value(pt), max)), 1.8, 1.8);
    };
    line([](const Point& pt) { return pt.cacheBytes; }, maxBytes, cacheColour, false);
    line([](const Point& pt) { return pt.msPerToken; }, maxMs, speedColour, true);
}

} // namespace hearsay::ui
