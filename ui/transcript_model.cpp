// Segments as table rows (see transcript_model.h).
#include "ui/transcript_model.h"

#include <QColor>
#include <QFont>

#include <algorithm>
#include <cmath>
#include <set>

namespace hearsay::ui {

TranscriptModel::TranscriptModel(QObject* parent) : QAbstractTableModel(parent) {}

int TranscriptModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : segmentCount() + (m_tentative.isEmpty() ? 0 : 1);
}

int TranscriptModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TranscriptModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    if (isTentativeRow(index.row())) {
        switch (role) {
        case Qt::DisplayRole:
        case RawRole:
            return index.column() == TextColumn ? QVariant(m_tentative) : QVariant();
        case Qt::ForegroundRole:
            return QColor(Qt::gray);
        case Qt::FontRole: {
            QFont font;
            font.setItalic(true);
            return font;
        }
        case Qt::ToolTipRole:
            return tr("Tentative: the next steps may still change this text");
        case Qt::TextAlignmentRole:
            return QVariant(Qt::AlignLeft | Qt::AlignTop);
        default:
            return {};
        }
    }
    const Segment& s = segment(index.row());
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == StartColumn) return formatTime(s.start);
        if (index.column() == EndColumn) return formatTime(s.end);
        return QString::fromStdString(s.text).trimmed();
    case RawRole:
        if (index.column() == StartColumn) return s.start;
        if (index.column() == EndColumn) return s.end;
        return QString::fromStdString(s.text);
    case Qt::ToolTipRole:
        return tr("Segment %1, %2 – %3 s, temperature %4, average log-probability %5, no-speech probability %6")
            .arg(s.id)
            .arg(s.start, 0, 'f', 2)
            .arg(s.end, 0, 'f', 2)
            .arg(double(s.temperature), 0, 'f', 1)
            .arg(s.avgLogprob, 0, 'f', 3)
            .arg(s.noSpeechProb, 0, 'f', 3);
    case Qt::EditRole:
        return index.column() == TextColumn ? QVariant(QString::fromStdString(s.text).trimmed()) : QVariant();
    case Qt::TextAlignmentRole:
        if (index.column() != TextColumn) return QVariant(Qt::AlignRight | Qt::AlignTop);
        return QVariant(Qt::AlignLeft | Qt::AlignTop);
    default:
        return {};
    }
}

QVariant TranscriptModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) return section + 1;
    switch (section) {
    case StartColumn: return tr("Start");
    case EndColumn: return tr("End");
    case TextColumn: return tr("Text");
    default: return {};
    }
}

Qt::ItemFlags TranscriptModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && m_editable && index.column() == TextColumn && !isTentativeRow(index.row()))
        f |= Qt::ItemIsEditable;
    return f;
}

bool TranscriptModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || !index.isValid() || index.row() >= segmentCount() || index.column() != TextColumn ||
        !m_editable)
        return false;
    Segment& segment = m_segments[size_t(index.row())];
    const std::string text = " " + value.toString().trimmed().toStdString();
    if (text != segment.text) segment.words.clear();  // their timings no longer match the text
    segment.text = text;
    emit dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole, RawRole});
    return true;
}

void TranscriptModel::appendCommitted(const std::string& text, double start, double end, bool endOfUtterance,
                                      const std::vector<Word>& words) {
    if (m_openRow && !m_segments.empty()) {
        Segment& s = m_segments.back();
        s.text += text;
        s.words.insert(s.words.end(), words.begin(), words.end());
        s.end = std::max(s.end, end);
        const QModelIndex first = index(segmentCount() - 1, 0), last = index(segmentCount() - 1, ColumnCount - 1);
        emit dataChanged(first, last);
    } else if (!QString::fromStdString(text).trimmed().isEmpty()) {
        Segment s;
        s.id = m_segments.empty() ? 0 : m_segments.back().id + 1;
        s.start = start;
        s.end = end;
        s.text = text;
        s.words = words;
        const int row = segmentCount();
        beginInsertRows({}, row, row);
        m_segments.push_back(std::move(s));
        endInsertRows();
        m_openRow = true;
    }
    if (endOfUtterance) m_openRow = false;
}

void TranscriptModel::setTentative(const QString& text) {
    const QString shown = text.trimmed();
    const int row = segmentCount();
    if (shown == m_tentative) return;
    if (m_tentative.isEmpty()) {
        beginInsertRows({}, row, row);
        m_tentative = shown;
        endInsertRows();
    } else if (shown.isEmpty()) {
        beginRemoveRows({}, row, row);
        m_tentative.clear();
        endRemoveRows();
    } else {
        m_tentative = shown;
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
}

void TranscriptModel::appendSegments(const std::vector<Segment>& segments) {
    std::vector<const Segment*> shown;
    for (const Segment& s : segments)
        if (!QString::fromStdString(s.text).trimmed().isEmpty()) shown.push_back(&s);
    if (shown.empty()) return;
    const int first = segmentCount();
    beginInsertRows({}, first, first + static_cast<int>(shown.size()) - 1);
    for (const Segment* s : shown) m_segments.push_back(*s);
    endInsertRows();
}

void TranscriptModel::clear() {
    beginResetModel();
    m_segments.clear();
    m_tentative.clear();
    m_openRow = false;
    m_source.clear();
    m_language.clear();
    m_statistics = {};
    endResetModel();
}

void TranscriptModel::setRunDetails(const std::string& source, const std::string& language,
                                    const RunStatistics& statistics) {
    m_source = source;
    m_language = language;
    m_statistics = statistics;
}

Transcript TranscriptModel::transcript() const {
    Transcript t;
    t.source = m_source;
    t.language = m_language;
    t.segments = m_segments;
    t.statistics = m_statistics;
    for (const Segment& s : m_segments) t.text += s.text;
    return t;
}

QString TranscriptModel::plainText(const QModelIndexList& indexes) const {
    std::set<int> rows;
    for (const QModelIndex& index : indexes)
        if (index.isValid() && index.model() == this && index.row() < segmentCount()) rows.insert(index.row());
    QStringList lines;
    for (int row : rows) lines << QString::fromStdString(segment(row).text).trimmed();
    return lines.join('\n');
}

QString TranscriptModel::formatTime(double seconds) {
    const long long ms = std::llround(std::max(0.0, seconds) * 1000.0);
    const long long h = ms / 3600000, m = (ms / 60000) % 60, s = (ms / 1000) % 60, frac = ms % 1000;
    if (h > 0)
        return QString("%1:%2:%3.%4").arg(h).arg(m, 2, 10, QChar('0')).arg(s, 2, 10, QChar('0')).arg(frac, 3, 10, QChar('0'));
    return QString("%1:%2.%3").arg(m).arg(s, 2, 10, QChar('0')).arg(frac, 3, 10, QChar('0'));
}

} // namespace hearsay::ui
