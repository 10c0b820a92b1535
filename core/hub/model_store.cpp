// The models directory: what is installed there, and removing it (with any partial download).
#include "core/hub/model_download.h"
#include "core/hub/model_probe.h"

#include <system_error>

namespace hearsay::hub {
namespace fs = std::filesystem;

fs::path installedPath(const CatalogEntry& entry, const fs::path& modelsDir) {
    const fs::path path = modelsDir / entry.installName();
    std::error_code ec;
    if (!fs::exists(path, ec)) return {};
    return probeModel(path) ? path : fs::path();
}

Result<bool> removeModel(const CatalogEntry& entry, const fs::path& modelsDir) {
    const std::string name = entry.installName();
    bool removed = false;
    for (const fs::path& p : {modelsDir / name, modelsDir / ("." + name + ".partial"), modelsDir / (name + ".part")}) {
        std::error_code ec;
        if (!fs::exists(fs::symlink_status(p, ec))) continue;
        fs::remove_all(p, ec);
        if (ec) return makeError("cannot remove " + p.string() + ": " + ec.message());
        removed = true;
    }
    return removed;
}

} // namespace hearsay::hub
