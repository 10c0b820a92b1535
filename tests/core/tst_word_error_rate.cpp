// Word error rate, worked by hand: the normaliser, the word-level Levenshtein distance, and the
// distance of a known opening against a text that goes on after it or was cut off inside it.
#include "core/transcript/word_error_rate.h"

#include <QtTest>

using namespace hearsay;

class TestWordErrorRate : public QObject {
    Q_OBJECT
private slots:
    void normalisesCaseAndPunctuation() {
        QCOMPARE(QString::fromStdString(normaliseForWer("  And so, my FELLOW Americans!  Don't ask. ")),
                 QString("and so my fellow americans don't ask"));
        QCOMPARE(werWords("Ask not!").size(), size_t(2));
        QVERIFY(werWords(" ... ").empty());
    }

    void countsSubstitutionsDeletionsAndInsertions() {
        QCOMPARE(wordErrors("a b c d", "a b c d").errors, 0);
        QCOMPARE(wordErrors("a b c d", "a x c d").errors, 1);    // a substitution
        QCOMPARE(wordErrors("a b c d", "a c d").errors, 1);      // a deletion
        QCOMPARE(wordErrors("a b c d", "a b y c d").errors, 1);  // an insertion
        QCOMPARE(wordErrors("a b c d", "").errors, 4);
        QCOMPARE(wordErrors("", "a b").errors, 2);
        const WordErrors w = wordErrors("and so my fellow americans", "and so am i fellow americans");
        QCOMPARE(w.errors, 2);
        QCOMPARE(w.referenceWords, 5);
        QCOMPARE(w.rate(), 0.4);
        QCOMPARE(wordErrors("", "").rate(), 0.0);
        QCOMPARE(wordErrors("", "a").rate(), 1.0);
    }

    void leadingErrorsLeaveTheRestFree() {
        const char* opening = "and so my fellow americans ask not";
        // The text goes on after the opening: the rest costs nothing.
        QCOMPARE(leadingWordErrors(opening, "And so my fellow Americans, ask not what your country can do").errors, 0);
        QCOMPARE(wordErrors(opening, "And so my fellow Americans, ask not what your country can do").errors, 5);
        // The device went away mid-sentence and one word was heard wrong.
        QCOMPARE(leadingWordErrors(opening, "And so am I fellow Americans. Ask not. Like your country.").errors, 2);
        // Cut off inside the opening: the missing words are deletions.
        QCOMPARE(leadingWordErrors(opening, "And so my fellow").errors, 3);
        // Nothing kept, or something else: every word of the opening is an error.
        QCOMPARE(leadingWordErrors(opening, "").errors, 7);
        QVERIFY(leadingWordErrors(opening, "the quick brown fox jumps over the lazy dog").errors >= 6);
        // The best beginning is chosen, not the first or the longest.
        QCOMPARE(leadingWordErrors("a b c", "a b c a b c").errors, 0);
        QCOMPARE(leadingWordErrors("a b c", "a b").errors, 1);
        QCOMPARE(leadingWordErrors("a b c", "x a b c z").errors, 1);
        QCOMPARE(leadingWordErrors("a b c", "a b c").referenceWords, 3);
    }
};

QTEST_GUILESS_MAIN(TestWordErrorRate)
#include "tst_word_error_rate.moc"
