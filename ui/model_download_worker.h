// Runs catalog downloads off the GUI thread (it lives on the model manager's thread): requests
// arrive as queued calls, progress and outcomes leave as queued signals carrying values. Cancel
// is the one cross-thread call: it sets an atomic the transfer polls.
#pragma once

#include "core/hub/model_catalog.h"

#include <QObject>
#include <QString>

#include <atomic>

namespace hearsay::ui {

class ModelDownloadWorker : public QObject {
    Q_OBJECT
public:
    explicit ModelDownloadWorker(std::vector<hub::CatalogEntry> entries) : m_entries(std::move(entries)) {}
    void cancel() { m_cancel.store(true); }  // any thread

public slots:
    // Downloads entry `index` into `modelsDir` from `hubUrl` (empty: the default hub).
    void download(int index, const QString& modelsDir, const QString& hubUrl);

signals:
    void progress(int index, const QString& file, qint64 done, qint64 total, double bytesPerSecond);
    void finished(int index, const QString& path);
    void warning(int index, const QString& message);  // the download goes on
    void failed(int index, const QString& message, bool cancelled);

private:
    std::vector<hub::CatalogEntry> m_entries;
    std::atomic<bool> m_cancel{false};
};

} // namespace hearsay::ui
