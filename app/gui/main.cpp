// hearsay: the desktop application.
#include "ui/main_window.h"

#include <QApplication>
#include <QIcon>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("Hearsay");
    QApplication::setOrganizationName("Hearsay");
    QApplication::setWindowIcon(QIcon(":/icons/hearsay.svg"));
    hearsay::ui::MainWindow window;
    window.show();
    return app.exec();
}
