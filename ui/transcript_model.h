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

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Segments without text (instantaneous or blank, kept by the engine as records) get no row,
    // as the exporters write no cue for them.
    void appendSegments(const std::vector<Segment>& segments);
    void clear();
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
};

} // namespace hearsay::ui
