// TranscriptModel: the segment table checked by QAbstractItemModelTester while rows arrive and
// go, its cells and raw values, the time format, copy text, and the Transcript it hands to the
// core exporters.
#include "core/transcript/transcript_export.h"
#include "ui/transcript_model.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QFont>
#include <QSignalSpy>
#include <QtTest>

using hearsay::Segment;
using hearsay::ui::TranscriptModel;

namespace {

Segment segment(int id, double start, double end, const std::string& text) {
    Segment s;
    s.id = id;
    s.start = start;
    s.end = end;
    s.text = text;
    s.tokens = {50364, 100 + id, 50414};
    s.avgLogprob = -0.25;
    return s;
}

} // namespace

class TestTranscriptModel : public QObject {
    Q_OBJECT
private slots:
    void testerAcceptsAppendsAndResets() {
        TranscriptModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), 3);

        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.appendSegments({segment(0, 0.0, 2.5, " And so my fellow Americans,"), segment(1, 2.5, 4.0, " ask not")});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(inserted.at(0).at(2).toInt(), 1);

        model.appendSegments({segment(2, 4.0, 7.25, " what your country can do for you,")});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(inserted.at(1).at(1).toInt(), 2);
        QCOMPARE(inserted.at(1).at(2).toInt(), 2);

        model.appendSegments({});  // nothing: no signal, no row
        QCOMPARE(inserted.count(), 2);

        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.transcript().segments.empty());
        // No children anywhere: a table.
        QCOMPARE(model.rowCount(model.index(0, 0)), 0);
    }

    void dictationRowsPassTheTester() {
        TranscriptModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTentative(" And so");
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.segmentCount(), 0);
        QVERIFY(model.isTentativeRow(0));
        const QModelIndex cell = model.index(0, TranscriptModel::TextColumn);
        QCOMPARE(model.data(cell).toString(), QString("And so"));
        QVERIFY(model.data(cell, Qt::FontRole).value<QFont>().italic());
        QCOMPARE(model.data(cell, Qt::ForegroundRole).value<QColor>(), QColor(Qt::gray));
        QVERIFY(!(model.flags(cell) & Qt::ItemIsEditable));
        model.setTentative(" And so my fellow");
        model.appendCommitted(" And so,", 0.0, 1.0, false);  // a row opens before the tentative row
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.segmentCount(), 1);
        model.setTentative(" my fellow");
        model.appendCommitted(" my fellow Americans.", 1.0, 2.5, true);  // the same utterance: the row grows
        QCOMPARE(model.segmentCount(), 1);
        QCOMPARE(model.segment(0).text, std::string(" And so, my fellow Americans."));
        QCOMPARE(model.segment(0).end, 2.5);
        model.setTentative(QString());
        QCOMPARE(model.rowCount(), 1);
        model.appendCommitted(" Ask not", 3.0, 4.0, false);  // after a pause: a new row
        QCOMPARE(model.segmentCount(), 2);
        QCOMPARE(model.segment(1).id, 1);
        // Editable only when the window says so (idle), and only committed text.
        const QModelIndex first = model.index(0, TranscriptModel::TextColumn);
        QVERIFY(!model.setData(first, "changed"));
        model.setEditable(true);
        QVERIFY(model.flags(first) & Qt::ItemIsEditable);
        QVERIFY(!(model.flags(model.index(0, TranscriptModel::StartColumn)) & Qt::ItemIsEditable));
        QVERIFY(model.setData(first, "And so, my fellow citizens."));
        QCOMPARE(model.data(first).toString(), QString("And so, my fellow citizens."));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void segmentsWithoutTextGetNoRow() {
        TranscriptModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.appendSegments({segment(0, 0.0, 0.0, ""), segment(1, 0.0, 3.0, "  "), segment(2, 3.0, 5.0, " kept")});
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.data(model.index(0, TranscriptModel::TextColumn)).toString(), QString("kept"));
        QCOMPARE(model.segment(0).id, 2);
        model.appendSegments({segment(3, 5.0, 5.0, "")});
        QCOMPARE(model.rowCount(), 1);
    }

    void cellsShowTimesAndText() {
        TranscriptModel model;
        model.appendSegments({segment(0, 1.5, 62.345, " Ask what you can do"), segment(1, 3725.25, 3726.0, " ünïcødé ✓")});
        QCOMPARE(model.data(model.index(0, TranscriptModel::StartColumn)).toString(), QString("0:01.500"));
        QCOMPARE(model.data(model.index(0, TranscriptModel::EndColumn)).toString(), QString("1:02.345"));
        QCOMPARE(model.data(model.index(0, TranscriptModel::TextColumn)).toString(), QString("Ask what you can do"));
        QCOMPARE(model.data(model.index(1, TranscriptModel::StartColumn)).toString(), QString("1:02:05.250"));
        QCOMPARE(model.data(model.index(1, TranscriptModel::TextColumn)).toString(), QString::fromUtf8("ünïcødé ✓"));
        // Raw values: seconds and the text as decoded (leading space kept).
        QCOMPARE(model.data(model.index(0, TranscriptModel::StartColumn), TranscriptModel::RawRole).toDouble(), 1.5);
        QCOMPARE(model.data(model.index(0, TranscriptModel::EndColumn), TranscriptModel::RawRole).toDouble(), 62.345);
        QCOMPARE(model.data(model.index(0, TranscriptModel::TextColumn), TranscriptModel::RawRole).toString(),
                 QString(" Ask what you can do"));
        QVERIFY(model.data(model.index(0, 0), Qt::ToolTipRole).toString().contains("-0.250"));
        QVERIFY(!model.data(model.index(2, 0)).isValid());
        QVERIFY(!model.data(model.index(0, 3)).isValid());
        QCOMPARE(model.headerData(TranscriptModel::StartColumn, Qt::Horizontal).toString(), QString("Start"));
        QCOMPARE(model.headerData(TranscriptModel::TextColumn, Qt::Horizontal).toString(), QString("Text"));
    }

    void formatTime_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << 0.0 << "0:00.000";
        QTest::newRow("negative clamps") << -3.0 << "0:00.000";
        QTest::newRow("rounds to ms") << 9.9996 << "0:10.000";
        QTest::newRow("minutes") << 754.02 << "12:34.020";
        QTest::newRow("hours") << 36000.0 + 59.0 * 60.0 + 59.999 << "10:59:59.999";
    }
    void formatTime() {
        QFETCH(double, seconds);
        QFETCH(QString, text);
        QCOMPARE(TranscriptModel::formatTime(seconds), text);
    }

    void copyTextFollowsRowOrder() {
        TranscriptModel model;
        model.appendSegments({segment(0, 0, 1, " one"), segment(1, 1, 2, " two"), segment(2, 2, 3, " three")});
        // Selected out of order, several cells per row: each row once, in row order.
        const QModelIndexList selection = {model.index(2, 0), model.index(0, 2), model.index(2, 2), model.index(0, 1)};
        QCOMPARE(model.plainText(selection), QString("one\nthree"));
        QCOMPARE(model.plainText({}), QString());
    }

    void transcriptFeedsTheExporters() {
        TranscriptModel model;
        model.appendSegments({segment(0, 0.0, 2.5, " And so my fellow Americans,"), segment(1, 2.5, 4.0, "")});
        model.appendSegments({segment(2, 4.0, 11.0, " ask not what your country can do for you.")});
        hearsay::RunStatistics stats;
        stats.audioSeconds = 11.0;
        stats.wallSeconds = 2.2;
        model.setRunDetails("jfk.wav", "en", stats);

        const hearsay::Transcript t = model.transcript();
        QCOMPARE(t.segments.size(), size_t(2));
        QCOMPARE(t.language, std::string("en"));
        QCOMPARE(t.source, std::string("jfk.wav"));
        QCOMPARE(t.text, std::string(" And so my fellow Americans, ask not what your country can do for you."));

        const QString srt = QString::fromStdString(hearsay::toSrt(t));
        QVERIFY2(srt.contains("00:00:00,000 --> 00:00:02,500"), qPrintable(srt));
        QVERIFY2(srt.contains("00:00:04,000 --> 00:00:11,000"), qPrintable(srt));
        QVERIFY(srt.contains("ask not what your country"));
        QCOMPARE(QString::fromStdString(hearsay::toTxt(t)),
                 QString("And so my fellow Americans,\nask not what your country can do for you.\n"));
        const QString json = QString::fromStdString(hearsay::toJson(t));
        QVERIFY(json.contains("\"language\": \"en\""));
    }
};

QTEST_APPLESS_MAIN(TestTranscriptModel)
#include "tst_transcript_model.moc"
