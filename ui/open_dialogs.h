// What the user picks to open, in File › Open model…, Open model directory… and Open audio…
// (each starting in the folder given, the one last used), and whether a dropped path names a
// model rather than audio.
#pragma once

#include <QCoreApplication>
#include <QString>

class QWidget;

namespace hearsay::ui {

class OpenDialogs {
    Q_DECLARE_TR_FUNCTIONS(OpenDialogs)
public:
    // The chosen path; empty when cancelled.
    static QString askModelFile(QWidget* parent, const QString& folder);
    static QString askModelDirectory(QWidget* parent, const QString& folder);
    static QString askAudio(QWidget* parent, const QString& folder);
    // A directory, a .bin, a config.json or a safetensors file (or its index).
    static bool looksLikeModel(const QString& path);
};

} // namespace hearsay::ui
