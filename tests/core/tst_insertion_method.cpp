// Typed or pasted, and with which chord: the mode decides first; in automatic mode a character
// the layout lacks or a text of kPasteFromCodePoints characters (counted as characters, not
// bytes) is pasted. Terminals by WM_CLASS get Ctrl+Shift+V, xterm and urxvt Shift+Insert with
// PRIMARY, everything else Ctrl+V. The settings' words for the modes.
#include "core/typing/insertion_method.h"

#include <QTest>

using namespace hearsay;

namespace {

std::string repeat(const std::string& piece, size_t times) {
    std::string out;
    for (size_t i = 0; i < times; ++i) out += piece;
    return out;
}

} // namespace

class TestInsertionMethod : public QObject {
    Q_OBJECT
private slots:
    void modeAndTextDecide() {
        const std::string shortText = "hello there";
        QCOMPARE(pasteReason(InsertionMode::Automatic, shortText, std::nullopt), PasteReason::Typed);
        QCOMPARE(pasteReason(InsertionMode::Automatic, shortText, 0x2192), PasteReason::MissingCharacter);
        QCOMPARE(pasteReason(InsertionMode::Type, shortText, 0x2192), PasteReason::Typed);
        QCOMPARE(pasteReason(InsertionMode::Paste, shortText, std::nullopt), PasteReason::Chosen);
        // Characters, not bytes: "ř" is two bytes.
        const std::string below = repeat("ř", kPasteFromCodePoints - 1), at = repeat("ř", kPasteFromCodePoints);
        QCOMPARE(pasteReason(InsertionMode::Automatic, below, std::nullopt), PasteReason::Typed);
        QCOMPARE(pasteReason(InsertionMode::Automatic, at, std::nullopt), PasteReason::Long);
        QCOMPARE(pasteReason(InsertionMode::Type, at, std::nullopt), PasteReason::Typed);
        // The typer's own threshold (wtype's is lower: its typing is slower).
        const std::string wtypeAt = repeat("ř", kPasteFromCodePointsWtype);
        QCOMPARE(pasteReason(InsertionMode::Automatic, wtypeAt, std::nullopt), PasteReason::Typed);
        QCOMPARE(pasteReason(InsertionMode::Automatic, wtypeAt, std::nullopt, kPasteFromCodePointsWtype), PasteReason::Long);
        QCOMPARE(pasteReason(InsertionMode::Automatic, wtypeAt.substr(2), std::nullopt, kPasteFromCodePointsWtype),
                 PasteReason::Typed);
    }

    void chordPerTarget_data() {
        QTest::addColumn<QString>("instance");
        QTest::addColumn<QString>("windowClass");
        QTest::addColumn<QString>("chord");
        QTest::addColumn<bool>("primary");
        QTest::addRow("xterm") << "xterm" << "XTerm" << "Shift+Insert" << true;
        QTest::addRow("urxvt") << "urxvt" << "URxvt" << "Shift+Insert" << true;
        QTest::addRow("st") << "st-256color" << "st-256color" << "Ctrl+Shift+V" << false;
        QTest::addRow("gnome-terminal") << "gnome-terminal-server" << "Gnome-terminal" << "Ctrl+Shift+V" << false;
        QTest::addRow("konsole") << "konsole" << "konsole" << "Ctrl+Shift+V" << false;
        QTest::addRow("kitty") << "kitty" << "kitty" << "Ctrl+Shift+V" << false;
        QTest::addRow("alacritty") << "Alacritty" << "Alacritty" << "Ctrl+Shift+V" << false;
        QTest::addRow("xfce4-terminal") << "xfce4-terminal" << "Xfce4-terminal" << "Ctrl+Shift+V" << false;
        QTest::addRow("wezterm") << "org.wezfurlong.wezterm" << "org.wezfurlong.wezterm" << "Ctrl+Shift+V" << false;
        QTest::addRow("editor") << "kate" << "kate" << "Ctrl+V" << false;
        QTest::addRow("browser") << "Navigator" << "firefox" << "Ctrl+V" << false;
        QTest::addRow("unknown") << "" << "" << "Ctrl+V" << false;
    }

    void chordPerTarget() {
        QFETCH(QString, instance);
        QFETCH(QString, windowClass);
        QFETCH(QString, chord);
        QFETCH(bool, primary);
        const PasteChord c = pasteChordFor(FocusedWindow{1, instance.toStdString(), windowClass.toStdString()});
        QCOMPARE(QString::fromStdString(c.name), chord);
        QCOMPARE(c.primarySelection, primary);
        QCOMPARE(c.keysyms.back(), std::string(chord.endsWith("Insert") ? "Insert" : "v"));
    }

    void modeNames() {
        for (InsertionMode mode : {InsertionMode::Automatic, InsertionMode::Type, InsertionMode::Paste})
            QCOMPARE(insertionModeFromName(insertionModeName(mode)), std::optional<InsertionMode>(mode));
        QCOMPARE(insertionModeFromName("Paste"), std::optional<InsertionMode>());
    }
};

QTEST_GUILESS_MAIN(TestInsertionMethod)
#include "tst_insertion_method.moc"
