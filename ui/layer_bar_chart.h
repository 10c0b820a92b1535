// A small QPainter bar chart of the K/V cache per decoder layer: for each layer a bar for the
// self-attention cache and one for the cross-attention cache, the allocated bytes drawn light
// and the bytes in use drawn dark over them. (Qt Charts is GPL; this is all we need.)
#pragma once

#include "core/nn/inference_session.h"

#include <QWidget>

#include <vector>

namespace hearsay::ui {

class LayerBarChart : public QWidget {
    Q_OBJECT
public:
    explicit LayerBarChart(QWidget* parent = nullptr);

    void setLayers(const std::vector<KvCacheStats::Layer>& layers);
    const std::vector<KvCacheStats::Layer>& layers() const { return m_layers; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    static QColor selfColor();
    static QColor crossColor();

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<KvCacheStats::Layer> m_layers;
};

// "0 B", "960 B", "12.5 KiB", "1.75 MiB", "1.20 GiB".
QString formatBytes(size_t bytes);

} // namespace hearsay::ui
