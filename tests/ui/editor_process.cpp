// A Qt text editor in a process of its own, for the tests that paste into another application
// (a paste within one process never crosses the X server): `editor_process FILE` shows an editor
// with the keyboard focus, prints "ready" once its window is active, and writes the editor's whole
// text to FILE whenever it changes. `editor_process FILE --chat` is a chat application's message
// box instead: Return (without Shift) sends the message (appended to FILE.sent, one line each)
// and empties the box; Shift+Return is a line break in the box.
#include <QApplication>
#include <QFile>
#include <QKeyEvent>
#include <QPlainTextEdit>
#include <QSaveFile>
#include <QTimer>
#include <QWindow>

#include <cstdio>
#include <cstring>
#include <memory>

namespace {

// Return without Shift sends the box's text; every other key is the editor's.
class ChatBox : public QPlainTextEdit {
public:
    explicit ChatBox(QString sentPath) : m_sentPath(std::move(sentPath)) {}

protected:
    void keyPressEvent(QKeyEvent* event) override {
        const bool enter = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
        if (!enter || (event->modifiers() & Qt::ShiftModifier)) {
            QPlainTextEdit::keyPressEvent(event);
            return;
        }
        QFile sent(m_sentPath);
        if (sent.open(QIODevice::Append)) sent.write(toPlainText().toUtf8() + "\n");
        clear();
    }

private:
    QString m_sentPath;
};

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const bool chat = argc == 3 && std::strcmp(argv[2], "--chat") == 0;
    if (argc != 2 && !chat) {
        std::fprintf(stderr, "usage: editor_process FILE [--chat]\n");
        return 2;
    }
    const QString path = QString::fromLocal8Bit(argv[1]);
    std::unique_ptr<QPlainTextEdit> box(chat ? new ChatBox(path + ".sent") : new QPlainTextEdit);
    QPlainTextEdit& editor = *box;
    editor.setWindowTitle("paste target");
    editor.resize(600, 300);
    bool pending = false;
    QObject::connect(&editor, &QPlainTextEdit::textChanged, [&] {
        if (pending) return;
        pending = true;  // once per turn of the event loop, however many keys came
        QTimer::singleShot(0, [&] {
            pending = false;
            QSaveFile file(path);
            if (!file.open(QIODevice::WriteOnly)) return;
            file.write(editor.toPlainText().toUtf8());
            file.commit();
        });
    });
    QObject::connect(&app, &QGuiApplication::focusWindowChanged, [](QWindow* window) {
        if (!window) return;
        std::printf("ready\n");
        std::fflush(stdout);
    });
    editor.show();
    editor.activateWindow();
    editor.setFocus();
    return app.exec();
}
