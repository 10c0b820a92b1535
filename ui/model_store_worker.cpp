#include "ui/model_store_worker.h"

namespace hearsay::ui {

void ModelStoreWorker::scan(const QStringList& userFolders) {
    std::vector<std::filesystem::path> folders;
    for (const auto& f : userFolders) folders.emplace_back(f.toStdString());
    ModelStoreView view;
    view.scan = hub::scanForModels(hub::defaultScanLocations(m_modelsDir.toStdString(), folders));
    const hub::ModelStore store(m_modelsDir.toStdString());
    view.stored.reserve(m_entries.size());
    for (const auto& e : m_entries) view.stored.push_back(store.state(e));
    emit scanned(view);
}

void ModelStoreWorker::remove(int index) {
    if (index < 0 || index >= int(m_entries.size())) return;
    auto outcome = hub::ModelStore(m_modelsDir.toStdString()).remove(m_entries[size_t(index)]);
    if (!outcome) emit removed(index, false, QString::fromStdString(outcome.message()));
    else emit removed(index, outcome.value(), QString());
}

} // namespace hearsay::ui
