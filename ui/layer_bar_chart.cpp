// Painting of the per-layer cache chart (see layer_bar_chart.h).
#include "ui/layer_bar_chart.h"

#include <QPainter>
#include <QPaintEvent>

#include <algorithm>

namespace hearsay::ui {
namespace {

constexpr int kMargin = 6;
constexpr int kLegendHeight = 18;
constexpr int kBarHeight = 7;       // one bar (self or cross) at full size
constexpr int kBarGap = 2;          // between a layer's two bars
constexpr int kLayerGap = 5;        // between layers

} // namespace

QString formatBytes(size_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) return QString("%1 B").arg(bytes);
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    return QString("%1 %2").arg(value, 0, 'f', value < 10.0 ? 2 : (value < 100.0 ? 1 : 0)).arg(units[unit]);
}

LayerBarChart::LayerBarChart(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

QColor LayerBarChart::selfColor() { return QColor(0x2f, 0x6f, 0xb3); }
QColor LayerBarChart::crossColor() { return QColor(0xd0, 0x7a, 0x1e); }

void LayerBarChart::setLayers(const std::vector<KvCacheStats::Layer>& layers) {
    m_layers = layers;
    updateGeometry();
    update();
}

QSize LayerBarChart::sizeHint() const {
    const int rows = std::max<int>(1, int(m_layers.size()));
    return {260, 2 * kMargin + kLegendHeight + rows * (2 * kBarHeight + kBarGap + kLayerGap)};
}

QSize LayerBarChart::minimumSizeHint() const {
    const int rows = std::max<int>(1, int(m_layers.size()));
    return {160, 2 * kMargin + kLegendHeight + rows * 6};
}

void LayerBarChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QRect area = rect().adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const QFontMetrics fm = fontMetrics();

    // Legend: dark = in use, light = allocated.
    int x = area.left();
    const int legendY = area.top() + (kLegendHeight - fm.height()) / 2;
    auto legend = [&](const QColor& color, const QString& label) {
        p.fillRect(QRect(x, legendY + fm.height() / 2 - 5, 10, 10), color);
        x += 14;
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(x, legendY, fm.horizontalAdvance(label) + 2, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, label);
        x += fm.horizontalAdvance(label) + 12;
    };
    legend(selfColor(), tr("self"));
    legend(crossColor(), tr("cross"));
    const QString note = tr("pale: allocated, dark: in use");
    if (x + fm.horizontalAdvance(note) <= area.right()) {  // the tooltip says it when there is no room
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(x, legendY, area.right() - x, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, note);
    }

    if (m_layers.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(area.adjusted(0, kLegendHeight, 0, 0), Qt::AlignCenter, tr("No session"));
        return;
    }

    size_t maximum = 1;
    for (const auto& l : m_layers) maximum = std::max({maximum, l.selfAllocated, l.crossAllocated, l.selfInUse, l.crossInUse});

    const int rows = int(m_layers.size());
    const int available = area.height() - kLegendHeight;
    const int perLayer = std::max(4, std::min(2 * kBarHeight + kBarGap + kLayerGap, available / rows));
    const int gap = perLayer >= 12 ? kLayerGap : 1;
    const int bar = std::max(1, (perLayer - gap - (perLayer >= 12 ? kBarGap : 0)) / 2);
    const int labelWidth = fm.horizontalAdvance(QString("L%1").arg(rows - 1)) + 6;
    const int barLeft = area.left() + labelWidth;
    const int barWidth = std::max(10, area.right() - barLeft);
    auto width = [&](size_t bytes) { return int(double(barWidth) * double(bytes) / double(maximum) + 0.5); };

    const int labelEvery = std::max(1, (fm.height() + perLayer - 1) / perLayer);  // labels must not overlap
    for (int i = 0; i < rows; ++i) {
        const auto& l = m_layers[size_t(i)];
        const int top = area.top() + kLegendHeight + i * perLayer;
        if (i % labelEvery == 0) {
            const int barsHeight = 2 * bar + (perLayer >= 12 ? kBarGap : 0);
            const int labelTop = top + barsHeight / 2 - fm.height() / 2;
            p.setPen(palette().color(QPalette::WindowText));
            p.drawText(QRect(area.left(), labelTop, labelWidth - 4, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                       QString("L%1").arg(i));
        }
        auto drawBar = [&](int y, size_t allocated, size_t inUse, QColor color) {
            QColor pale = color;
            pale.setAlpha(70);
            p.fillRect(QRect(barLeft, y, width(allocated), bar), pale);
            p.fillRect(QRect(barLeft, y, width(std::min(inUse, allocated ? allocated : inUse)), bar), color);
        };
        drawBar(top, l.selfAllocated, l.selfInUse, selfColor());
        drawBar(top + bar + (perLayer >= 12 ? kBarGap : 0), l.crossAllocated, l.crossInUse, crossColor());
    }
}

} // namespace hearsay::ui
