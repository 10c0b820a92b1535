// The main window: the transcript in the centre, the model and cache panel beside it.
#pragma once

#include <QMainWindow>

class QLabel;
class QPlainTextEdit;

namespace hearsay::ui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

private:
    void openModel();
    void showModelInfo(const QString& text);

    QPlainTextEdit* m_transcript = nullptr;
    QLabel* m_modelInfo = nullptr;
};

} // namespace hearsay::ui
