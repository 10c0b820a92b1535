// View › Word timings: the transcript as running text, one paragraph per segment headed by its
// start time, each word a box of its own: hovering shows its times and probability, words the
// model was unsure of are tinted (the lower the probability, the deeper the tint), the word
// being played is outlined. Clicking a word or a segment's time asks for playback from there;
// Space asks to pause or go on. It paints and forwards: the playback is WordPlayback's.
#pragma once

#include <QRect>
#include <QScrollArea>
#include <QString>

namespace hearsay::ui {

class TranscriptModel;
class WordCanvas;

class WordTimingsView : public QScrollArea {
    Q_OBJECT
public:
    explicit WordTimingsView(TranscriptModel* model, QWidget* parent = nullptr);

    // The word being played: the word of a row from `firstRow` on whose times hold `seconds`;
    // a negative `seconds` shows none.
    void setPlaying(int firstRow, double seconds);
    // The widget the words are drawn on (inside the scroll area), and where a word or a
    // segment's time is drawn on it (empty when there is no such word): for the tests.
    QWidget* canvas() const;
    QRect wordRect(int row, int word) const;
    QRect segmentTimeRect(int row) const;
    // The tooltip text of a word ("country — 9.86 to 10.42 s, probability 0.93").
    QString wordToolTip(int row, int word) const;
    // Probability under which a word is tinted.
    static constexpr double kUnsureProbability = 0.8;

signals:
    void wordClicked(int row, int word, double seconds);
    void segmentClicked(int row, double seconds);
    void pauseToggled();

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    TranscriptModel* m_model;
    WordCanvas* m_canvas;
};

} // namespace hearsay::ui
