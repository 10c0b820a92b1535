// A small QPainter chart of a dictation's steps over the last minutes: the K/V cache bytes in use
// (self + cross) and the decode ms/token, each on its own scale, with a vertical mark where a
// cache switch took effect (a step whose switches differ from the step before). No Qt Charts.
#pragma once

#include "core/streaming/streaming_events.h"

#include <QString>
#include <QWidget>

#include <deque>

namespace hearsay::ui {

class LiveChart : public QWidget {
    Q_OBJECT
public:
    struct Point {
        double seconds = 0.0;    // stream time of the step
        double cacheBytes = 0.0; // self + cross K/V in use
        double msPerToken = 0.0; // 0: the step decoded nothing
    };
    struct Mark {
        double seconds = 0.0;
        QString label;           // "self off", "cross on", …
    };

    explicit LiveChart(QWidget* parent = nullptr);

    void addStep(const StreamingStep& step);
    void clear();
    const std::deque<Point>& points() const { return m_points; }
    const std::deque<Mark>& marks() const { return m_marks; }

    static constexpr double kSpanSeconds = 180.0;  // the chart shows the last three minutes

    QSize sizeHint() const override { return {300, 120}; }
    QSize minimumSizeHint() const override { return {160, 90}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void dropOld();

    std::deque<Point> m_points;
    std::deque<Mark> m_marks;
    bool m_haveSwitches = false;
    bool m_selfCache = true, m_crossCache = true;
};

} // namespace hearsay::ui
