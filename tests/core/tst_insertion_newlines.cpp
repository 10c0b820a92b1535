// A newline in dictated text, planned for the target: Return keeps the text whole (a typed "\n" is
// Return, a pasted one is pasted as-is); Shift+Enter splits it at every newline into text pieces
// and line breaks (pressed as a chord), two for a blank line, none lost at either end; a space
// joins the lines, one space for each run of whitespace around a newline.
#include "core/typing/newline_mode.h"

#include <QTest>

using namespace hearsay;

namespace {

InsertionStep text(const char* t) { return {t, false}; }
InsertionStep lineBreak() { return {std::string(), true}; }

} // namespace

class TestInsertionNewlines : public QObject {
    Q_OBJECT
private slots:
    void returnKeepsTheText() {
        const auto steps = planNewlines("Hello.\nSee you\n", NewlineMode::Return);
        QCOMPARE(steps.size(), size_t(1));
        QVERIFY(steps[0] == text("Hello.\nSee you\n"));
        QVERIFY(planNewlines("", NewlineMode::Return).empty());
    }

    void shiftEnterSplitsAtEachNewline() {
        const std::vector<InsertionStep> expected = {text("Hello."), lineBreak(), text("See you")};
        QVERIFY(planNewlines("Hello.\nSee you", NewlineMode::ShiftEnter) == expected);
        // A blank line (new paragraph) is two line breaks; newlines at either end are kept.
        const std::vector<InsertionStep> paragraph = {lineBreak(), text("One."), lineBreak(), lineBreak(),
                                                      text("Two. "), lineBreak()};
        QVERIFY(planNewlines("\nOne.\n\nTwo. \n", NewlineMode::ShiftEnter) == paragraph);
        // Text without a newline: one step, as with Return.
        QVERIFY(planNewlines("no newline", NewlineMode::ShiftEnter) == std::vector<InsertionStep>{text("no newline")});
        QVERIFY(planNewlines("\n", NewlineMode::ShiftEnter) == std::vector<InsertionStep>{lineBreak()});
    }

    void spaceJoinsTheLines() {
        QVERIFY(planNewlines("Hello.\nSee you", NewlineMode::Space) == std::vector<InsertionStep>{text("Hello. See you")});
        QVERIFY(planNewlines("One. \n\n Two.\n", NewlineMode::Space) == std::vector<InsertionStep>{text("One. Two. ")});
        QVERIFY(planNewlines("\nStart", NewlineMode::Space) == std::vector<InsertionStep>{text("Start")});
        // Spaces without a newline stay as they are; a text of newlines alone types nothing.
        QVERIFY(planNewlines("a  b\tc", NewlineMode::Space) == std::vector<InsertionStep>{text("a  b\tc")});
        QVERIFY(planNewlines("\n\n", NewlineMode::Space).empty());
    }

    void namesRoundTrip() {
        for (NewlineMode mode : {NewlineMode::Return, NewlineMode::ShiftEnter, NewlineMode::Space})
            QCOMPARE(newlineModeFromName(newlineModeName(mode)), std::optional<NewlineMode>(mode));
        QCOMPARE(newlineModeName(NewlineMode::ShiftEnter), std::string("shift-enter"));
        QVERIFY(!newlineModeFromName("enter"));
    }
};

QTEST_GUILESS_MAIN(TestInsertionNewlines)
#include "tst_insertion_newlines.moc"
