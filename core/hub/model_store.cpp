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

fs::path ModelStore::modelPath(const CatalogEntry& entry) const { return m_directory / entry.installName(); }

fs::path ModelStore::stagingPath(const CatalogEntry& entry) const {
    return m_directory / ("." + entry.installName() + ".partial");
}

fs::path ModelStore::originPath(const CatalogEntry& entry) const {
    return m_directory / ("." + entry.installName() + ".origin");
}

fs::path ModelStore::partialFile(const fs::path& target) {
    fs::path part = target;
    part += ".part";
    return part;
}

bool ModelStore::isStagingName(const fs::path& entry) {
    const std::string name = entry.filename().string();
    return name.empty() || name[0] == '.' || name.ends_with(".part");
}

fs::path ModelStore::installedPath(const CatalogEntry& entry) const {
    const fs::path path = modelPath(entry);
    std::error_code ec;
    if (!fs::exists(path, ec)) return {};
    return probeModel(path) ? path : fs::path();
}

bool ModelStore::hasPartialDownload(const CatalogEntry& entry) const {
    std::error_code ec;
    return fs::exists(stagingPath(entry), ec) || fs::exists(partialFile(modelPath(entry)), ec);
}

Result<void> ModelStore::writeOrigin(const CatalogEntry& entry, const ModelOrigin& origin) const {
    return hub::writeOrigin(entry, m_directory, origin);
}

std::optional<ModelOrigin> ModelStore::readOrigin(const CatalogEntry& entry) const {
    return hub::readOrigin(entry, m_directory);
}

Result<bool> ModelStore::remove(const CatalogEntry& entry) const {
    bool removed = false;
    for (const fs::path& p : {modelPath(entry), stagingPath(entry), partialFile(modelPath(entry)), originPath(entry)}) {
        std::error_code ec;
        if (!fs::exists(fs::symlink_status(p, ec))) continue;
        fs::remove_all(p, ec);
        if (ec) return makeError("cannot remove " + p.string() + ": " + ec.message());
        removed = true;
    }
    return removed;
}

fs::path installedPath(const CatalogEntry& entry, const fs::path& modelsDir) {
    return ModelStore(modelsDir).installedPath(entry);
}

Result<bool> removeModel(const CatalogEntry& entry, const fs::path& modelsDir) { return ModelStore(modelsDir).remove(entry); }

// The origin record's format.
fs::path originPath(const CatalogEntry& entry, const fs::path& modelsDir) {
    return ModelStore(modelsDir).originPath(entry);
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

} // namespace hearsay::hub
