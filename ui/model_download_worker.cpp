#include "ui/model_download_worker.h"

#include "core/hub/hub_paths.h"
#include "core/hub/model_download.h"
#include "ui/system_proxy.h"

namespace hearsay::ui {

void ModelDownloadWorker::download(const ModelDownloadRequest& request) {
    const int index = request.index;
    if (index < 0 || index >= int(m_entries.size())) return;
#ifdef HEARSAY_HAVE_CURL
    hub::DownloadOptions options;
    options.hubUrl = hub::hubBaseUrl(request.hubUrl.toStdString());
    options.token = hub::huggingFaceToken();
    // The desktop's proxy for the hub, where Qt can read it (GNOME, KDE, libproxy's sources);
    // none there: the environment's, as libcurl reads it.
    options.proxy = systemProxyUrl(QString::fromStdString(options.hubUrl)).toStdString();
    options.cancel = request.cancel.get();  // none: not cancellable
    options.warning = [&](const std::string& message) { emit warning(index, QString::fromStdString(message)); };
    options.progress = [&](const hub::DownloadProgress& p) {
        emit progress(index, QString::fromStdString(p.file), qint64(p.done), qint64(p.total), p.bytesPerSecond);
    };
    auto path = hub::downloadModel(m_entries[size_t(index)], request.modelsDir.toStdString(), options);
    if (path) emit finished(index, QString::fromStdString(path->string()));
    else emit failed(index, QString::fromStdString(path.message()), path.kind() == ErrorKind::Cancelled);
#else
    emit failed(index, tr("This build has no downloader (libcurl was not found when it was built)."), false);
#endif
}

} // namespace hearsay::ui
