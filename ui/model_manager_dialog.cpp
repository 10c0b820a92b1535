#include "ui/model_manager_dialog.h"

#include "core/hub/hub_paths.h"
#include "ui/model_download_worker.h"
#include "ui/model_store_worker.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

namespace hearsay::ui {
namespace {

QString human(uint64_t bytes) {
    if (bytes >= 1000ull * 1000 * 1000) return QString::number(double(bytes) / 1e9, 'f', 2) + " GB";
    return QString::number(double(bytes) / 1e6, 'f', 0) + " MB";
}

QTableWidget* makeTable(const QStringList& headers, QWidget* parent) {
    auto* t = new QTableWidget(0, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

constexpr int kRevisionColumn = 3;
constexpr int kStatusColumn = 8;

int selectedRow(const QTableWidget* t) {
    const auto rows = t->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.first().row();
}

} // namespace

ModelManagerDialog::ModelManagerDialog(QWidget* parent, std::vector<hub::CatalogEntry> entries, QString modelsDir,
                                       QString hubUrl)
    : QDialog(parent), m_entries(std::move(entries)),
      m_modelsDir(modelsDir.isEmpty() ? QString::fromStdString(hub::modelsDirectory().string()) : modelsDir),
      m_hubUrl(std::move(hubUrl)), m_stored(m_entries.size()), m_thread(new QThread), m_storeThread(new QThread) {
    setWindowTitle(tr("Models"));
    resize(900, 620);
    auto* layout = new QVBoxLayout(this);
    m_intro = new QLabel(this);
    m_intro->setWordWrap(true);
    m_intro->hide();
    layout->addWidget(m_intro);

    layout->addWidget(new QLabel(tr("<b>Catalog</b> — downloads go to %1").arg(m_modelsDir.toHtmlEscaped()), this));
    m_catalog = makeTable({tr("Model"), tr("Format"), tr("Precision"), tr("Revision"), tr("Download"), tr("Memory"),
                           tr("Languages"), tr("Speed"), tr("Status")},
                          this);
    layout->addWidget(m_catalog, 3);
    auto* catalogButtons = new QHBoxLayout;
    m_download = new QPushButton(tr("&Download"), this);
    m_cancel = new QPushButton(tr("&Cancel download"), this);
    m_remove = new QPushButton(tr("&Remove"), this);
    m_open = new QPushButton(tr("&Open"), this);
    for (auto* b : {m_download, m_cancel, m_remove, m_open}) catalogButtons->addWidget(b);
    catalogButtons->addStretch();
    layout->addLayout(catalogButtons);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->hide();
    layout->addWidget(m_progress);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);

    layout->addWidget(new QLabel(tr("<b>Found on this computer</b> (Hugging Face cache, whisper.cpp and Buzz folders, "
                                    "your folders; used in place)"),
                                 this));
    m_found = makeTable({tr("Model"), tr("Format"), tr("Size"), tr("Where"), tr("Path")}, this);
    layout->addWidget(m_found, 2);
    auto* foundButtons = new QHBoxLayout;
    m_openFound = new QPushButton(tr("Open &found model"), this);
    auto* addFolderButton = new QPushButton(tr("Add &folder…"), this);
    foundButtons->addWidget(m_openFound);
    foundButtons->addWidget(addFolderButton);
    foundButtons->addStretch();
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    foundButtons->addWidget(close);
    layout->addLayout(foundButtons);

    connect(m_download, &QPushButton::clicked, this, &ModelManagerDialog::downloadSelected);
    connect(m_cancel, &QPushButton::clicked, this, &ModelManagerDialog::cancelDownload);
    connect(m_remove, &QPushButton::clicked, this, &ModelManagerDialog::removeSelected);
    connect(m_open, &QPushButton::clicked, this, &ModelManagerDialog::openSelected);
    connect(m_openFound, &QPushButton::clicked, this, &ModelManagerDialog::openSelected);
    connect(addFolderButton, &QPushButton::clicked, this, &ModelManagerDialog::addFolder);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_catalog, &QTableWidget::itemSelectionChanged, this, [this] {
        if (selectedRow(m_catalog) >= 0) m_found->clearSelection();
        updateButtons();
    });
    connect(m_found, &QTableWidget::itemSelectionChanged, this, [this] {
        if (selectedRow(m_found) >= 0) m_catalog->clearSelection();
        updateButtons();
    });
    connect(m_catalog, &QTableWidget::cellDoubleClicked, this, [this] { openSelected(); });
    connect(m_found, &QTableWidget::cellDoubleClicked, this, [this] { openSelected(); });

    qRegisterMetaType<ModelDownloadRequest>();
    qRegisterMetaType<ModelStoreView>();
    m_worker = new ModelDownloadWorker(m_entries);
    m_worker->moveToThread(m_thread.get());
    connect(m_thread.get(), &QThread::finished, m_worker, &QObject::deleteLater);
    connect(this, &ModelManagerDialog::downloadRequested, m_worker, &ModelDownloadWorker::download,
            Qt::QueuedConnection);
    connect(m_worker, &ModelDownloadWorker::progress, this, &ModelManagerDialog::onProgress, Qt::QueuedConnection);
    connect(m_worker, &ModelDownloadWorker::finished, this, &ModelManagerDialog::onFinished, Qt::QueuedConnection);
    connect(m_worker, &ModelDownloadWorker::failed, this, &ModelManagerDialog::onFailed, Qt::QueuedConnection);
    connect(m_worker, &ModelDownloadWorker::warning, this, &ModelManagerDialog::onWarning, Qt::QueuedConnection);
    m_thread->start();

    auto* store = new ModelStoreWorker(m_entries, m_modelsDir);
    store->moveToThread(m_storeThread.get());
    connect(m_storeThread.get(), &QThread::finished, store, &QObject::deleteLater);
    connect(this, &ModelManagerDialog::scanRequested, store, &ModelStoreWorker::scan, Qt::QueuedConnection);
    connect(this, &ModelManagerDialog::removeRequested, store, &ModelStoreWorker::remove, Qt::QueuedConnection);
    connect(store, &ModelStoreWorker::scanned, this, &ModelManagerDialog::onScanned, Qt::QueuedConnection);
    connect(store, &ModelStoreWorker::removed, this, &ModelManagerDialog::onRemoved, Qt::QueuedConnection);
    m_storeThread->start();
    paintCatalog();
    refresh();
}

ModelManagerDialog::~ModelManagerDialog() {
    // The threads' deleters wait for the current job: a transfer returns once it sees the flag.
    if (m_downloadCancel) m_downloadCancel->store(true);
}

void ModelManagerDialog::setUserFolders(const QStringList& folders) {
    m_userFolders = folders;
    refresh();
}

void ModelManagerDialog::setIntroduction(const QString& text) {
    m_intro->setText(text);
    m_intro->setVisible(!text.isEmpty());
}

QString ModelManagerDialog::statusText() const { return m_status->text(); }

void ModelManagerDialog::refresh() {
    ++m_pendingDiskWork;
    emit scanRequested(m_userFolders);
}

bool ModelManagerDialog::installed(int row) const {
    return row >= 0 && row < int(m_stored.size()) && !m_stored[size_t(row)].installed.empty();
}

void ModelManagerDialog::onScanned(const ModelStoreView& view) {
    --m_pendingDiskWork;
    m_scan = view.scan;
    if (view.stored.size() == m_entries.size()) m_stored = view.stored;
    paintCatalog();

    m_found->setRowCount(int(m_scan.models.size()));
    for (int row = 0; row < int(m_scan.models.size()); ++row) {
        const auto& f = m_scan.models[size_t(row)];
        const QStringList cells = {QString::fromStdString(f.model.sizeName),
                                   QString::fromStdString(std::string(hub::formatWord(f.model.format))),
                                   human(f.model.bytes), QString::fromStdString(f.source),
                                   QString::fromStdString(f.model.path.string())};
        for (int c = 0; c < cells.size(); ++c) m_found->setItem(row, c, new QTableWidgetItem(cells[c]));
    }
    m_found->resizeColumnsToContents();
    QStringList skipped;
    for (const auto& p : m_scan.problems) skipped << QString::fromStdString(p.message);
    m_found->setToolTip(skipped.isEmpty() ? QString() : tr("Skipped by the scan:\n%1").arg(skipped.join('\n')));
    updateButtons();
    if (m_pendingDiskWork == 0) emit refreshed();
}

void ModelManagerDialog::paintCatalog() {
    m_catalog->setRowCount(int(m_entries.size()));
    for (int row = 0; row < int(m_entries.size()); ++row) {
        const auto& e = m_entries[size_t(row)];
        QString status = row == m_downloading ? tr("downloading…") : QString();
        if (status.isEmpty() && installed(row)) status = tr("installed");
        // The commit the files come from, by its first 8 digits; "main!" where none is pinned yet.
        const QString revision = QString::fromStdString(e.pinned() ? e.revision.substr(0, 8) : e.revision + "!");
        const QStringList cells = {QString::fromStdString(e.name), QString::fromStdString(std::string(hub::formatWord(e.format))),
                                   QString::fromStdString(e.precision), revision,
                                   (e.hashesKnown() ? "" : "~") + human(e.diskBytes), "~" + human(e.memoryBytes),
                                   QString::fromStdString(e.languages()), QString::fromStdString(e.speed), status};
        for (int c = 0; c < cells.size(); ++c) m_catalog->setItem(row, c, new QTableWidgetItem(cells[c]));
        m_catalog->item(row, kRevisionColumn)->setToolTip(
            e.pinned() ? tr("Downloaded from commit %1 of %2, checked against the sizes and SHA-256 recorded for it")
                             .arg(QString::fromStdString(e.revision), QString::fromStdString(e.repo))
                       : tr("No commit pinned yet: the files come from the commit %1 is at when downloaded, checked "
                            "against the hub's X-Linked-Size / X-Linked-Etag; the commit is recorded beside the model")
                             .arg(QString::fromStdString(e.revision)));
    }
    m_catalog->resizeColumnsToContents();
}

void ModelManagerDialog::updateButtons() {
    const int row = selectedRow(m_catalog);
    const bool isInstalled = installed(row);
    m_download->setEnabled(row >= 0 && !isInstalled && m_downloading < 0);
    m_cancel->setEnabled(m_downloading >= 0);
    const bool partial = row >= 0 && row < int(m_stored.size()) && m_stored[size_t(row)].partial;
    m_remove->setEnabled((isInstalled || partial) && row != m_downloading);
    m_open->setEnabled(isInstalled);
    m_openFound->setEnabled(selectedRow(m_found) >= 0);
}

void ModelManagerDialog::selectCatalogRow(int row) { m_catalog->selectRow(row); }
void ModelManagerDialog::selectFoundRow(int row) { m_found->selectRow(row); }

void ModelManagerDialog::selectEntry(const std::string& name, ModelFormat format) {
    for (int row = 0; row < int(m_entries.size()); ++row) {
        if (m_entries[size_t(row)].name != name || m_entries[size_t(row)].format != format) continue;
        m_catalog->selectRow(row);
        m_catalog->scrollToItem(m_catalog->item(row, 0));
        return;
    }
}

void ModelManagerDialog::downloadSelected() {
    const int row = selectedRow(m_catalog);
    if (row < 0 || m_downloading >= 0) return;
    m_downloading = row;
    m_progress->setValue(0);
    m_progress->show();
    m_status->setText(tr("Downloading %1…").arg(QString::fromStdString(m_entries[size_t(row)].installName())));
    m_catalog->item(row, kStatusColumn)->setText(tr("downloading…"));
    m_downloadCancel = std::make_shared<std::atomic<bool>>(false);
    emit downloadRequested(ModelDownloadRequest{row, m_modelsDir, m_hubUrl, m_downloadCancel});
    updateButtons();
}

void ModelManagerDialog::cancelDownload() {
    if (m_downloading >= 0 && m_downloadCancel) m_downloadCancel->store(true);
}

void ModelManagerDialog::removeSelected() {
    const int row = selectedRow(m_catalog);
    if (row < 0 || row == m_downloading) return;
    ++m_pendingDiskWork;
    m_remove->setEnabled(false);
    emit removeRequested(row);
}

void ModelManagerDialog::onRemoved(int index, bool removedSomething, const QString& error) {
    --m_pendingDiskWork;
    const auto& e = m_entries[size_t(index)];
    if (!error.isEmpty()) m_status->setText(error);
    else if (!removedSomething) m_status->setText(tr("%1 is not installed.").arg(QString::fromStdString(e.name)));
    else m_status->setText(tr("Removed %1.").arg(QString::fromStdString(e.installName())));
    refresh();
}

void ModelManagerDialog::openSelected() {
    QString path;
    if (int row = selectedRow(m_catalog); row >= 0) {
        if (installed(row)) path = QString::fromStdString(m_stored[size_t(row)].installed.string());
    } else if (int f = selectedRow(m_found); f >= 0 && f < int(m_scan.models.size())) {
        path = QString::fromStdString(m_scan.models[size_t(f)].model.path.string());
    }
    if (path.isEmpty()) return;
    emit modelChosen(path);
    accept();
}

void ModelManagerDialog::addFolder() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("A folder with Whisper models"));
    if (dir.isEmpty()) return;
    if (!m_userFolders.contains(dir)) m_userFolders << dir;
    emit foldersChanged(m_userFolders);
    refresh();
}

void ModelManagerDialog::onProgress(int index, const QString& file, qint64 done, qint64 total, double bytesPerSecond) {
    if (index != m_downloading) return;
    m_progress->setValue(total > 0 ? int(1000 * done / total) : 0);
    m_status->setText(tr("Downloading %1: %2 — %3 of %4, %5 MB/s")
                          .arg(QString::fromStdString(m_entries[size_t(index)].installName()), file,
                               human(uint64_t(done)), total > 0 ? human(uint64_t(total)) : tr("?"))
                          .arg(bytesPerSecond / 1e6, 0, 'f', 1));
}

void ModelManagerDialog::onFinished(int index, const QString& path) {
    m_downloading = -1;
    m_downloadCancel.reset();
    m_progress->hide();
    m_status->setText(tr("Installed %1 — Open loads it.").arg(path) +
                      (m_warnings.isEmpty() ? QString() : tr(" Warning: %1").arg(m_warnings.join(' '))));
    m_warnings.clear();
    refresh();
    selectCatalogRow(index);
    emit downloadEnded(true);
}

// Kept until the download ends: progress lines replace the status text meanwhile.
void ModelManagerDialog::onWarning(int index, const QString& message) {
    if (index == m_downloading) m_warnings << message;
}

void ModelManagerDialog::onFailed(int index, const QString& message, bool cancelled) {
    (void)index;
    m_downloading = -1;
    m_downloadCancel.reset();
    m_progress->hide();
    m_status->setText(cancelled ? tr("Cancelled. %1").arg(message) : tr("Download failed: %1").arg(message));
    m_warnings.clear();
    refresh();
    emit downloadEnded(false);
}

} // namespace hearsay::ui
