// What the test desktop of the portal suites (tests/core/portal_desktop) received as keys, read
// back into text: each pressed key symbol as its character (Return as a newline), and what does
// not add up (a key left pressed, a release without its press).
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <xkbcommon/xkbcommon.h>

namespace hearsay::test {

struct TypedKeys {
    QString text;
    QString problems;  // empty when every press had its release
};

inline TypedKeys keysOf(const QStringList& said) {
    TypedKeys typed;
    QList<int> down;
    for (const QString& line : said) {
        const QStringList words = line.split(' ');
        if (words.size() != 3 || words[0] != "keysym") continue;
        const int keysym = words[1].toInt();
        if (words[2] == "1") {
            down << keysym;
            uint32_t cp = xkb_keysym_to_utf32(uint32_t(keysym));
            if (keysym == XKB_KEY_Return) cp = '\n';
            typed.text += QString::fromUcs4(reinterpret_cast<const char32_t*>(&cp), 1);
        } else if (!down.removeOne(keysym)) {
            typed.problems += QString(" released %1 unpressed").arg(keysym);
        }
    }
    for (int keysym : down) typed.problems += QString(" %1 left pressed").arg(keysym);
    return typed;
}

} // namespace hearsay::test
