// The model manager: the catalog (with what is installed), the models already found on this
// disk, download with progress and Cancel, remove; choosing a model emits modelChosen(path), which
// the main window loads. It paints and forwards: downloads run on a ModelDownloadWorker thread,
// the scan, the store's state of each entry and Remove on a ModelStoreWorker thread (nothing here
// touches the disk); the catalog, scan and store are core/hub's.
#pragma once

#include "core/hub/model_catalog.h"
#include "core/hub/model_scan.h"
#include "core/hub/model_store.h"
#include "ui/model_download_worker.h"
#include "ui/worker_thread.h"

#include <QDialog>

#include <atomic>
#include <memory>
#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace hearsay::ui {

struct ModelStoreView;

class ModelManagerDialog : public QDialog {
    Q_OBJECT
public:
    // `entries`: the catalog to offer (the built-in one by default; tests pass their own).
    // `modelsDir` and `hubUrl`: empty for the defaults (hub_paths.h; HEARSAY_HUB_URL, HF_ENDPOINT).
    explicit ModelManagerDialog(QWidget* parent = nullptr, std::vector<hub::CatalogEntry> entries = hub::catalog(),
                                QString modelsDir = {}, QString hubUrl = {});
    ~ModelManagerDialog() override;

    // Folders the user added (scanned too); foldersChanged() reports additions, for saving.
    void setUserFolders(const QStringList& folders);
    QStringList userFolders() const { return m_userFolders; }
    // The first-start text above the tables ("no model yet ...").
    void setIntroduction(const QString& text);
    // Asks for a rescan of the disk; both tables are repainted when it arrives (refreshed()).
    void refresh();
    // A scan or a removal asked for has not answered yet.
    bool diskWorkPending() const { return m_pendingDiskWork > 0; }
    // Actions on the selected row (also for tests): download, cancel it, remove, open.
    void downloadSelected();
    void cancelDownload();
    void removeSelected();
    void openSelected();
    void selectCatalogRow(int row);
    void selectFoundRow(int row);
    // Selects the catalog row of `name` in `format` (the first start's recommendation).
    void selectEntry(const std::string& name, ModelFormat format);

    QTableWidget* catalogTable() const { return m_catalog; }
    QTableWidget* foundTable() const { return m_found; }
    QString statusText() const;
    bool downloading() const { return m_downloading >= 0; }

signals:
    void modelChosen(const QString& path);
    void downloadEnded(bool ok);
    void foldersChanged(const QStringList& folders);
    // The tables show the disk as the last scan asked for found it.
    void refreshed();
    // To the workers (queued).
    void scanRequested(const QStringList& userFolders);
    void removeRequested(int index);
    void downloadRequested(const hearsay::ui::ModelDownloadRequest& request);

private:
    void addFolder();
    void updateButtons();
    void onProgress(int index, const QString& file, qint64 done, qint64 total, double bytesPerSecond);
    void onFinished(int index, const QString& path);
    void onFailed(int index, const QString& message, bool cancelled);
    void onWarning(int index, const QString& message);
    void onScanned(const ModelStoreView& view);
    void onRemoved(int index, bool removedSomething, const QString& error);
    void paintCatalog();
    bool installed(int row) const;

    std::vector<hub::CatalogEntry> m_entries;
    QString m_modelsDir;
    QString m_hubUrl;
    QStringList m_userFolders;
    hub::ScanResult m_scan;
    std::vector<hub::StoredModel> m_stored;  // per entry, as the last scan saw it
    int m_pendingDiskWork = 0;
    int m_downloading = -1;
    std::shared_ptr<std::atomic<bool>> m_downloadCancel;  // the running download's
    QStringList m_warnings;  // of the running download, shown when it ends

    WorkerThread m_thread;       // downloads
    WorkerThread m_storeThread;  // scans and removals
    ModelDownloadWorker* m_worker = nullptr;

    QLabel* m_intro = nullptr;
    QTableWidget* m_catalog = nullptr;
    QTableWidget* m_found = nullptr;
    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_download = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_remove = nullptr;
    QPushButton* m_open = nullptr;
    QPushButton* m_openFound = nullptr;
};

} // namespace hearsay::ui
