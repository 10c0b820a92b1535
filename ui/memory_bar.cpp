// Painting of the memory bar (see memory_bar.h).
#include "ui/memory_bar.h"

#include <QPainter>

#include <algorithm>

namespace hearsay::ui {

MemoryBar::MemoryBar(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QColor MemoryBar::cacheColor() { return QColor(0x2f, 0x6f, 0xb3); }
QColor MemoryBar::usedColor() { return QColor(0x8a, 0x9b, 0xae); }

void MemoryBar::setMemory(const DeviceMemory& memory, size_t cacheBytes) {
    m_memory = memory;
    m_cacheBytes = cacheBytes;
    update();
}

double MemoryBar::usedFraction() const {
    if (!m_memory.known || m_memory.totalBytes == 0) return 0.0;
    const size_t used = m_memory.totalBytes - std::min(m_memory.freeBytes, m_memory.totalBytes);
    return double(used) / double(m_memory.totalBytes);
}

QSize MemoryBar::sizeHint() const { return {200, 10}; }
QSize MemoryBar::minimumSizeHint() const { return {60, 10}; }

void MemoryBar::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QRect area = rect().adjusted(0, 1, -1, -2);
    p.fillRect(area, palette().color(QPalette::Base));
    if (m_memory.known && m_memory.totalBytes > 0) {
        const double total = double(m_memory.totalBytes);
        const int used = int(area.width() * usedFraction() + 0.5);
        // The caches are part of the used memory; never drawn wider than it.
        // A sliver at least, when there are caches at all.
        const int share = int(area.width() * double(m_cacheBytes) / total + 0.5);
        const int cache = std::min(used, std::max(m_cacheBytes > 0 ? 1 : 0, share));
        p.fillRect(QRect(area.left(), area.top(), used, area.height()), usedColor());
        p.fillRect(QRect(area.left(), area.top(), cache, area.height()), cacheColor());
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(area);
}

} // namespace hearsay::ui
