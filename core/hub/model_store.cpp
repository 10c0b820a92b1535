// The models directory: what is installed there, where downloads are assembled, where each model
// came from, and removing it (with any partial download).
#include "core/hub/model_store.h"

#include "core/hub/model_probe.h"
#include "core/util/json_text.h"

#include <fstream>
#include <sstream>
#include <system_error>

namespace hearsay::hub {
namespace fs = std::filesystem;

fs::path installedPath(const CatalogEntry& entry, const fs::path& modelsDir) {
    const fs::path path = modelsDir / entry.installName();
    std::error_code ec;
    if (!fs::exists(path, ec)) return {};
    return probeModel(path) ? path : fs::path();
}

fs::path stagingPath(const CatalogEntry& entry, const fs::path& modelsDir) {
    return modelsDir / ("." + entry.installName() + ".partial");
}

fs::path originPath(const CatalogEntry& entry, const fs::path& modelsDir) {
    return modelsDir / ("." + entry.installName() + ".origin");
}

Result<void> writeOrigin(const CatalogEntry& entry, const fs::path& modelsDir, const ModelOrigin& origin) {
    const nlohmann::json doc = {
        {"hub", origin.hubUrl}, {"repo", origin.repo}, {"revision", origin.revision}, {"commit", origin.commit}};
    const fs::path path = originPath(entry, modelsDir);
    fs::path temporary = path;
    temporary += ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << dumpJson(doc, 2) << "\n";
        if (!out.flush()) return makeError("cannot write " + temporary.string());
    }
    std::error_code ec;
    fs::rename(temporary, path, ec);
    if (ec) return makeError("cannot move " + temporary.string() + " to " + path.string() + ": " + ec.message());
    return {};
}

std::optional<ModelOrigin> readOrigin(const CatalogEntry& entry, const fs::path& modelsDir) {
    std::ifstream in(originPath(entry, modelsDir), std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = parseJson(text.str());
    if (!parsed || !parsed->is_object()) return std::nullopt;
    auto field = [&doc = parsed.value()](const char* key) {
        auto it = doc.find(key);
        return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    ModelOrigin o;
    o.hubUrl = field("hub");
    o.repo = field("repo");
    o.revision = field("revision");
    o.commit = field("commit");
    return o;
}

Result<bool> removeModel(const CatalogEntry& entry, const fs::path& modelsDir) {
    const std::string name = entry.installName();
    bool removed = false;
    for (const fs::path& p : {modelsDir / name, stagingPath(entry, modelsDir), modelsDir / (name + ".part"),
                              originPath(entry, modelsDir)}) {
        std::error_code ec;
        if (!fs::exists(fs::symlink_status(p, ec))) continue;
        fs::remove_all(p, ec);
        if (ec) return makeError("cannot remove " + p.string() + ": " + ec.message());
        removed = true;
    }
    return removed;
}

} // namespace hearsay::hub
