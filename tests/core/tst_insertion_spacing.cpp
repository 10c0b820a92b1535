// What goes into another application for each committed piece of a dictation: no space before
// the first piece, exactly one between pieces whatever Whisper's leading spaces, nothing for a
// blank piece, and a fresh start after reset().
#include "core/typing/insertion_spacing.h"

#include <QTest>

using hearsay::InsertionSpacing;

class TestInsertionSpacing : public QObject {
    Q_OBJECT
private slots:
    void piecesAreSpacedOnce() {
        InsertionSpacing s;
        QCOMPARE(s.next(" And so, my fellow Americans,"), std::string("And so, my fellow Americans,"));
        QCOMPARE(s.next(" ask not"), std::string(" ask not"));
        QCOMPARE(s.next("what your country"), std::string(" what your country"));  // no leading space: one added
        QCOMPARE(s.next("   "), std::string());                                    // blank: nothing typed
        QCOMPARE(s.next("  can do"), std::string(" can do"));                       // several spaces: one
        QCOMPARE(s.next(" for you.\n"), std::string(" for you.\n"));
        QCOMPARE(s.next(" Ask"), std::string("Ask"));  // after a typed newline, no space
        s.reset();
        QCOMPARE(s.next(" New dictation."), std::string("New dictation."));
    }
};

QTEST_GUILESS_MAIN(TestInsertionSpacing)
#include "tst_insertion_spacing.moc"
