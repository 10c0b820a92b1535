// The model manager's disk work, off the GUI thread (it lives on a thread of its own, so a scan
// never waits behind a download): the scan of the usual places and the user's folders, what the
// models directory holds of each catalog entry (core/hub's ModelStore), and Remove. Requests
// arrive as queued signals; answers leave as queued signals carrying values, which the dialog
// paints.
#pragma once

#include "core/hub/model_catalog.h"
#include "core/hub/model_scan.h"
#include "core/hub/model_store.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>

#include <vector>

namespace hearsay::ui {

// The disk as one scan saw it.
struct ModelStoreView {
    hub::ScanResult scan;                 // the models found (the models directory included)
    std::vector<hub::StoredModel> stored; // per catalog entry, in the catalog's order
};

class ModelStoreWorker : public QObject {
    Q_OBJECT
public:
    ModelStoreWorker(std::vector<hub::CatalogEntry> entries, QString modelsDir)
        : m_entries(std::move(entries)), m_modelsDir(std::move(modelsDir)) {}

public slots:
    // Scans the usual places, the models directory and `userFolders`; answers scanned().
    void scan(const QStringList& userFolders);
    // Removes catalog entry `index` (model, partial download, origin record); answers removed().
    void remove(int index);

signals:
    void scanned(const hearsay::ui::ModelStoreView& view);
    // `removedSomething`: false when there was nothing to remove; `error`: non-empty when it failed.
    void removed(int index, bool removedSomething, const QString& error);

private:
    std::vector<hub::CatalogEntry> m_entries;
    QString m_modelsDir;
};

} // namespace hearsay::ui

Q_DECLARE_METATYPE(hearsay::ui::ModelStoreView)
