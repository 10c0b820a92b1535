// The models directory's layout (ModelStore): where a catalog model is installed, where its
// download is assembled, and the record of where it came from. Nothing else names these paths:
// the downloader, the scan, the CLI and the model manager ask the store.
//
//   NAME                 the model: a directory (HF, CTranslate2) or the ggml .bin itself
//   NAME.part            a ggml file being downloaded (any downloaded file: FILE.part beside FILE)
//   .NAME.partial/       a directory model being assembled
//   .NAME.origin         JSON: hub, repository, revision asked for, commit served (X-Repo-Commit)
//
// Every method touches the disk except the path ones (modelPath, stagingPath, originPath,
// partialFile, isStagingName); call the others off a GUI thread.
#pragma once

#include "core/hub/model_catalog.h"
#include "core/util/result.h"

#include <filesystem>
#include <optional>
#include <string>

namespace hearsay::hub {

// Where a model came from. A download records it as soon as the hub names the commit, so that a
// resumed download fetches its remaining files from that same commit.
struct ModelOrigin {
    std::string hubUrl;     // the base URL it was fetched from
    std::string repo;       // "Systran/faster-whisper-tiny.en"
    std::string revision;   // as asked for: the catalog's pin, or "main" when the user chose it
    std::string commit;     // the commit the hub served (X-Repo-Commit); empty when it named none
};

// What the store holds of one catalog model.
struct StoredModel {
    std::filesystem::path installed;  // the model when installed and it reads as a model, else empty
    bool partial = false;             // an interrupted download of it is there (NAME.part or .NAME.partial/)
};

class ModelStore {
public:
    explicit ModelStore(std::filesystem::path directory) : m_directory(std::move(directory)) {}
    const std::filesystem::path& directory() const { return m_directory; }

    // "NAME", installed or not.
    std::filesystem::path modelPath(const CatalogEntry& entry) const;
    // ".NAME.partial": where a directory model is assembled.
    std::filesystem::path stagingPath(const CatalogEntry& entry) const;
    // ".NAME.origin"
    std::filesystem::path originPath(const CatalogEntry& entry) const;

    // The model's path when already installed (and it reads as a model), else empty.
    std::filesystem::path installedPath(const CatalogEntry& entry) const;
    // Whether a download of it was interrupted: its partial file or its staging directory is there.
    bool hasPartialDownload(const CatalogEntry& entry) const;
    StoredModel state(const CatalogEntry& entry) const { return {installedPath(entry), hasPartialDownload(entry)}; }

    Result<void> writeOrigin(const CatalogEntry& entry, const ModelOrigin& origin) const;
    // Empty when there is no record or it does not read.
    std::optional<ModelOrigin> readOrigin(const CatalogEntry& entry) const;

    // Removes the installed model, any partial download of it and its origin record; false when
    // there was nothing.
    Result<bool> remove(const CatalogEntry& entry) const;

    // Where a file on its way to `target` is written until it is verified: "target.part".
    static std::filesystem::path partialFile(const std::filesystem::path& target);
    // Whether a directory entry is the store's bookkeeping (hidden: staging, origin records) or a
    // partial file, never a model to offer.
    static bool isStagingName(const std::filesystem::path& entry);

private:
    std::filesystem::path m_directory;
};

// Shorthands for ModelStore(modelsDir).X(entry), as the CLI and tests use them.
std::filesystem::path installedPath(const CatalogEntry& entry, const std::filesystem::path& modelsDir);
std::filesystem::path originPath(const CatalogEntry& entry, const std::filesystem::path& modelsDir);
Result<void> writeOrigin(const CatalogEntry& entry, const std::filesystem::path& modelsDir, const ModelOrigin& origin);
std::optional<ModelOrigin> readOrigin(const CatalogEntry& entry, const std::filesystem::path& modelsDir);
Result<bool> removeModel(const CatalogEntry& entry, const std::filesystem::path& modelsDir);

} // namespace hearsay::hub
