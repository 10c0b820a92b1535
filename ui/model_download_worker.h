// Runs catalog downloads off the GUI thread (it lives on the model manager's download thread):
// requests arrive as queued signals carrying a ModelDownloadRequest, progress and outcomes leave
// as queued signals carrying values. Nothing calls into it from another thread: Cancel is the
// request's flag, an atomic the dialog makes and keeps, which the transfer polls.
#pragma once

#include "core/hub/model_catalog.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace hearsay::ui {

struct ModelDownloadRequest {
    int index = -1;      // the catalog entry
    QString modelsDir;
    QString hubUrl;      // empty: the default hub
    // Set from any thread to cancel this download (and only this one).
    std::shared_ptr<std::atomic<bool>> cancel;
};

class ModelDownloadWorker : public QObject {
    Q_OBJECT
public:
    explicit ModelDownloadWorker(std::vector<hub::CatalogEntry> entries) : m_entries(std::move(entries)) {}

public slots:
    void download(const hearsay::ui::ModelDownloadRequest& request);

signals:
    void progress(int index, const QString& file, qint64 done, qint64 total, double bytesPerSecond);
    void finished(int index, const QString& path);
    void warning(int index, const QString& message);  // the download goes on
    void failed(int index, const QString& message, bool cancelled);

private:
    std::vector<hub::CatalogEntry> m_entries;
};

} // namespace hearsay::ui

Q_DECLARE_METATYPE(hearsay::ui::ModelDownloadRequest)
