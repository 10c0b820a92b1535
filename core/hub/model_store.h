// The models directory's layout: where a catalog model is installed, where its download is
// assembled, and the record of where it came from. Nothing else names these paths.
//
//   NAME                 the model: a directory (HF, CTranslate2) or the ggml .bin itself
//   NAME.part            a ggml file being downloaded
//   .NAME.partial/       a directory model being assembled
//   .NAME.origin         JSON: hub, repository, revision asked for, commit served (X-Repo-Commit)
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

// The model's path when already installed in `modelsDir` (and it reads as a model), else empty.
std::filesystem::path installedPath(const CatalogEntry& entry, const std::filesystem::path& modelsDir);

// ".NAME.partial": where a directory model is assembled.
std::filesystem::path stagingPath(const CatalogEntry& entry, const std::filesystem::path& modelsDir);

// ".NAME.origin"
std::filesystem::path originPath(const CatalogEntry& entry, const std::filesystem::path& modelsDir);
Result<void> writeOrigin(const CatalogEntry& entry, const std::filesystem::path& modelsDir, const ModelOrigin& origin);
// Empty when there is no record or it does not read.
std::optional<ModelOrigin> readOrigin(const CatalogEntry& entry, const std::filesystem::path& modelsDir);

// Removes the installed model, any partial download of it and its origin record; false when there
// was nothing.
Result<bool> removeModel(const CatalogEntry& entry, const std::filesystem::path& modelsDir);

} // namespace hearsay::hub
