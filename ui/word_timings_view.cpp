// The word view (see word_timings_view.h): a canvas laid out from the transcript model's rows,
// inside a scroll area whose width it follows.
#include "ui/word_timings_view.h"

#include "ui/transcript_model.h"

#include <QEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>
#include <vector>

namespace hearsay::ui {

// The laid-out words: one box per word (or, for a segment without word timings, per piece of
// its text, which plays from the segment's start).
class WordCanvas : public QWidget {
public:
    WordCanvas(TranscriptModel* model, WordTimingsView* view) : QWidget(view), m_model(model), m_view(view) {
        setMouseTracking(true);
        setAttribute(Qt::WA_OpaquePaintEvent);
    }

    struct Item {
        int row = 0;
        int word = -1;  // -1: a piece of a segment's text without word timings
        QRect rect;
        QString text;
    };

    void relayout() {
        m_items.clear();
        m_times.clear();
        const QFontMetrics fm(font());
        const int margin = 8, pad = 3, lineHeight = fm.height() + 6, gap = 8;
        const int timeWidth = fm.horizontalAdvance("0:00:00.000") + 16;
        const int left = margin + timeWidth, right = std::max(left + 100, width() - margin);
        const int space = fm.horizontalAdvance(' ');
        int y = margin;
        for (int row = 0; row < m_model->segmentCount(); ++row) {
            const Segment& s = m_model->segment(row);
            m_times.push_back(QRect(margin, y, fm.horizontalAdvance(TranscriptModel::formatTime(s.start)) + 2 * pad, lineHeight));
            int x = left;
            auto place = [&](const QString& text, int word) {
                const int w = fm.horizontalAdvance(text) + 2 * pad;
                if (x > left && x + w > right) {
                    x = left;
                    y += lineHeight;
                }
                m_items.push_back({row, word, QRect(x, y, w, lineHeight), text});
                x += w + space;
            };
            if (!s.words.empty()) {
                for (int w = 0; w < int(s.words.size()); ++w) place(QString::fromStdString(s.words[size_t(w)].word).trimmed(), w);
            } else {
                for (const QString& piece : QString::fromStdString(s.text).split(' ', Qt::SkipEmptyParts)) place(piece, -1);
            }
            y += lineHeight + gap;
        }
        const int height = y + margin;
        if (minimumHeight() != height) setMinimumHeight(height);
        update();
    }

    const std::vector<Item>& items() const { return m_items; }
    QRect timeRect(int row) const { return row >= 0 && row < int(m_times.size()) ? m_times[size_t(row)] : QRect(); }

    void setPlaying(int firstRow, double seconds) {
        const int before = m_playing;
        m_playing = -1;
        if (seconds >= 0.0) {
            for (int i = 0; i < int(m_items.size()); ++i) {
                const Item& item = m_items[size_t(i)];
                if (item.row < firstRow || item.word < 0) continue;
                const Word& w = m_model->segment(item.row).words[size_t(item.word)];
                if (seconds >= w.start && seconds < w.end) {
                    m_playing = i;
                    break;
                }
            }
        }
        if (m_playing == before) return;
        update();
        if (m_playing >= 0) m_view->ensureVisible(m_items[size_t(m_playing)].rect.center().x(),
                                                  m_items[size_t(m_playing)].rect.center().y(), 10, 40);
    }

    QString toolTip(const Item& item) const {
        const Segment& s = m_model->segment(item.row);
        if (item.word < 0) return WordTimingsView::tr("No word timings for this segment: it plays from its start, %1")
                                      .arg(TranscriptModel::formatTime(s.start));
        const Word& w = s.words[size_t(item.word)];
        return WordTimingsView::tr("%1 — %2 to %3 s, probability %4")
            .arg(item.text)
            .arg(w.start, 0, 'f', 2)
            .arg(w.end, 0, 'f', 2)
            .arg(w.probability, 0, 'f', 2);
    }

protected:
    void resizeEvent(QResizeEvent*) override {
        if (width() != m_laidOutWidth) {
            m_laidOutWidth = width();
            relayout();
        }
    }

    void paintEvent(QPaintEvent* event) override {
        QPainter p(this);
        const QPalette& pal = palette();
        p.fillRect(event->rect(), pal.base());
        p.setPen(pal.color(QPalette::PlaceholderText));
        for (int row = 0; row < int(m_times.size()); ++row) {
            if (!m_times[size_t(row)].intersects(event->rect())) continue;
            p.drawText(m_times[size_t(row)], Qt::AlignLeft | Qt::AlignVCenter,
                       " " + TranscriptModel::formatTime(m_model->segment(row).start));
        }
        for (int i = 0; i < int(m_items.size()); ++i) {
            const Item& item = m_items[size_t(i)];
            if (!item.rect.intersects(event->rect())) continue;
            const QRect box = item.rect.adjusted(0, 2, 0, -2);
            if (item.word >= 0) {
                const double probability = m_model->segment(item.row).words[size_t(item.word)].probability;
                if (probability < WordTimingsView::kUnsureProbability) {
                    // From a pale amber just under the threshold to a deep red at probability 0.
                    const double unsure = 1.0 - probability / WordTimingsView::kUnsureProbability;
                    QColor tint = QColor::fromHsvF(0.11 * (1.0 - unsure), 0.35 + 0.5 * unsure, 1.0);
                    p.fillRect(box, tint);
                }
            }
            if (i == m_hover) p.fillRect(box, QColor(0, 0, 0, 25));
            p.setPen(item.word >= 0 ? pal.color(QPalette::Text) : pal.color(QPalette::PlaceholderText));
            p.drawText(item.rect, Qt::AlignCenter, item.text);
            if (i == m_playing) {
                p.setPen(QPen(pal.color(QPalette::Highlight), 2));
                p.drawRect(box.adjusted(1, 1, -1, -1));
            }
        }
    }

    bool event(QEvent* event) override {
        if (event->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(event);
            if (const int i = itemAt(help->pos()); i >= 0) {
                QToolTip::showText(help->globalPos(), toolTip(m_items[size_t(i)]), this, m_items[size_t(i)].rect);
            } else if (const int row = timeAt(help->pos()); row >= 0) {
                QToolTip::showText(help->globalPos(), WordTimingsView::tr("Play from %1").arg(
                                                          TranscriptModel::formatTime(m_model->segment(row).start)),
                                   this, m_times[size_t(row)]);
            } else {
                QToolTip::hideText();
            }
            return true;
        }
        if (event->type() == QEvent::Leave && m_hover >= 0) {
            m_hover = -1;
            update();
        }
        return QWidget::event(event);
    }

    void mouseMoveEvent(QMouseEvent* event) override {
        const int hover = itemAt(event->position().toPoint());
        if (hover != m_hover) {
            m_hover = hover;
            setCursor(hover >= 0 || timeAt(event->position().toPoint()) >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
            update();
        }
    }

    void mousePressEvent(QMouseEvent* event) override {
        if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
        m_view->setFocus(Qt::MouseFocusReason);
        const QPoint pos = event->position().toPoint();
        if (const int i = itemAt(pos); i >= 0) {
            const Item& item = m_items[size_t(i)];
            const Segment& s = m_model->segment(item.row);
            if (item.word >= 0) emit m_view->wordClicked(item.row, item.word, s.words[size_t(item.word)].start);
            else emit m_view->segmentClicked(item.row, s.start);
        } else if (const int row = timeAt(pos); row >= 0) {
            emit m_view->segmentClicked(row, m_model->segment(row).start);
        }
    }

private:
    int itemAt(QPoint pos) const {
        for (int i = 0; i < int(m_items.size()); ++i)
            if (m_items[size_t(i)].rect.contains(pos)) return i;
        return -1;
    }
    int timeAt(QPoint pos) const {
        for (int row = 0; row < int(m_times.size()); ++row)
            if (m_times[size_t(row)].contains(pos)) return row;
        return -1;
    }

    TranscriptModel* m_model;
    WordTimingsView* m_view;
    std::vector<Item> m_items;
    std::vector<QRect> m_times;  // per row
    int m_laidOutWidth = -1;
    int m_hover = -1;
    int m_playing = -1;
};

WordTimingsView::WordTimingsView(TranscriptModel* model, QWidget* parent)
    : QScrollArea(parent), m_model(model), m_canvas(new WordCanvas(model, this)) {
    setObjectName("wordTimingsView");
    setWidget(m_canvas);
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFocusPolicy(Qt::StrongFocus);
    // New rows follow the end while the view was at the end (as the table does).
    auto follow = [this] {
        QScrollBar* bar = verticalScrollBar();
        const bool atEnd = bar->value() >= bar->maximum();
        m_canvas->relayout();
        if (atEnd) bar->setValue(bar->maximum());
    };
    connect(model, &QAbstractItemModel::rowsInserted, this, follow);
    connect(model, &QAbstractItemModel::rowsRemoved, this, follow);
    connect(model, &QAbstractItemModel::modelReset, this, follow);
    connect(model, &QAbstractItemModel::dataChanged, this, follow);
}

QWidget* WordTimingsView::canvas() const { return m_canvas; }

void WordTimingsView::setPlaying(int firstRow, double seconds) { m_canvas->setPlaying(firstRow, seconds); }

QRect WordTimingsView::wordRect(int row, int word) const {
    for (const auto& item : m_canvas->items()) {
        if (item.row == row && item.word == word) return item.rect;
    }
    return {};
}

QRect WordTimingsView::segmentTimeRect(int row) const {
    return m_canvas->timeRect(row);
}

QString WordTimingsView::wordToolTip(int row, int word) const {
    for (const auto& item : m_canvas->items()) {
        if (item.row == row && item.word == word) return m_canvas->toolTip(item);
    }
    return {};
}

void WordTimingsView::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Space && event->modifiers() == Qt::NoModifier) {
        emit pauseToggled();
        return;
    }
    QScrollArea::keyPressEvent(event);
}

} // namespace hearsay::ui
