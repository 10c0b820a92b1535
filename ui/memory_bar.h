// A thin QPainter bar of the memory the engine allocates in (a GPU's, or system RAM): the K/V
// caches' share, the rest in use, and what is free, so that a cache switch or a larger beam
// count can be judged against what the device has left.
#pragma once

#include "core/backend/backend.h"

#include <QWidget>

namespace hearsay::ui {

class MemoryBar : public QWidget {
    Q_OBJECT
public:
    explicit MemoryBar(QWidget* parent = nullptr);

    // `cacheBytes`: K + V bytes allocated by the session (drawn as part of the used memory).
    void setMemory(const DeviceMemory& memory, size_t cacheBytes);
    const DeviceMemory& memory() const { return m_memory; }
    // Fraction of the total in use (0 when unknown).
    double usedFraction() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    static QColor cacheColor();
    static QColor usedColor();

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    DeviceMemory m_memory;
    size_t m_cacheBytes = 0;
};

} // namespace hearsay::ui
