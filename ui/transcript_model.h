// The transcript as a table for the view: one row per segment with text (start, end, text),
// appended as each 30-second window finishes. It keeps the segments whole, so that what was
// transcribed can be exported through the core exporters even after a cancel or an error.
#pragma once

#include "core/transcript/transcript.h"

#include <QAbstractTableModel>
#include <QModelIndexList>

#include <vector>

namespace hearsay::ui {

class TranscriptModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { StartColumn, EndColumn, TextColumn, ColumnCount };
    // Role carrying a column's raw value: seconds (double) for times, the decoded text as is.
    static constexpr int RawRole = Qt::UserRole + 1;

    explicit TranscriptModel(QObject* parent = nullptr);

    // Rows: the segments, then (while dictating) one row of tentative text.
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    // The text column of a segment row, while editable (setEditable): the segment's new text
    // (its words are dropped when the text changes: their timings no longer match it).
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    // Segments without text (instantaneous or blank, kept by the engine as records) get no row,
    // as the exporters write no cue for them.
    void appendSegments(const std::vector<Segment>& segments);
    void clear();

    // Dictation. Committed text extends the open row of the current utterance (a row is opened
    // by the first piece after the speaker paused, and closed by a piece at an utterance end);
    // its words (with word timings) are appended to the row's.
    void appendCommitted(const std::string& text, double start, double end, bool endOfUtterance,
                         const std::vector<Word>& words = {});
    // Closes the open dictation row (the run ended).
    void closeUtterance() { m_openRow = false; }
    // Text not yet committed, shown after the segments in grey italics; empty removes the row.
    void setTentative(const QString& text);
    const QString& tentative() const { return m_tentative; }
    bool isTentativeRow(int row) const { return !m_tentative.isEmpty() && row == segmentCount(); }
    // Rows of committed text (the tentative row excluded).
    int segmentCount() const { return static_cast<int>(m_segments.size()); }
    // The text column can be edited (after a run, not during one).
    void setEditable(bool editable) { m_editable = editable; }
    // Source, language and statistics of the finished run; the segments stay those appended.
    void setRunDetails(const std::string& source, const std::string& language, const RunStatistics& statistics);

    const Segment& segment(int row) const { return m_segments[static_cast<size_t>(row)]; }
    // A Transcript of the rows so far, for the exporters (text is the segments' text joined).
    Transcript transcript() const;
    // The rows' text, one stripped segment per line, in row order (for Copy).
    QString plainText(const QModelIndexList& rows) const;

    // "1:02.345" below an hour, "1:02:03.456" above.
    static QString formatTime(double seconds);

private:
    std::vector<Segment> m_segments;
    std::string m_source;
    std::string m_language;
    RunStatistics m_statistics;
    QString m_tentative;
    bool m_openRow = false;    // the last segment is an utterance still being committed
    bool m_editable = false;
};

} // namespace hearsay::ui
