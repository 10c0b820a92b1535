// A Qt text editor in a process of its own, for the tests that paste into another application
// (a paste within one process never crosses the X server): `editor_process FILE` shows an editor
// with the keyboard focus, prints "ready" once its window is active, and writes the editor's whole
// text to FILE whenever it changes.
#include <QApplication>
#include <QFile>
#include <QPlainTextEdit>
#include <QSaveFile>
#include <QTimer>
#include <QWindow>

#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: editor_process FILE\n");
        return 2;
    }
    const QString path = QString::fromLocal8Bit(argv[1]);
    QPlainTextEdit editor;
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
