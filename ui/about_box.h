// Help › About Hearsay: the version, the model and backend in use, and the licenses of what
// Hearsay uses.
#pragma once

#include <QCoreApplication>
#include <QString>

class QIcon;
class QWidget;

namespace hearsay::ui {

class AboutBox {
    Q_DECLARE_TR_FUNCTIONS(AboutBox)
public:
    // `modelPath`: empty while no model is loaded; `backend`: empty before the first model.
    static QString text(const QString& modelPath, const QString& backend);
    // The modal box with `text` and the window's `icon`.
    static void exec(const QString& text, const QIcon& icon, QWidget* parent);
};

} // namespace hearsay::ui
