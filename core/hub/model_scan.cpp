#include "core/hub/model_scan.h"

#include "core/hub/hub_paths.h"
#include "core/hub/model_catalog.h"
#include "core/hub/model_store.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace hearsay::hub {
namespace fs = std::filesystem;
namespace {

std::vector<fs::path> sortedEntries(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
}

bool hidden(const fs::path& p) { return ModelStore::isStagingName(p); }

struct Scanner {
    ScanResult result;
    std::set<std::string> seen;  // canonical paths already listed

    void add(const fs::path& path, const std::string& source, const std::string& repo, bool reportFailure) {
        std::error_code ec;
        const fs::path canonical = fs::weakly_canonical(path, ec);
        auto probed = probeModel(path);
        if (!probed) {
            if (reportFailure) result.problems.push_back({path, probed.message()});
            return;
        }
        if (!seen.insert((ec ? path : canonical).string()).second) return;
        result.models.push_back({std::move(probed.value()), source, repo});
    }

    // models--ORG--NAME/{blobs,snapshots/REV}
    void huggingFaceCache(const fs::path& root) {
        for (const auto& repoDir : sortedEntries(root)) {
            const std::string dirName = repoDir.filename().string();
            if (!dirName.starts_with("models--")) continue;
            std::string repo = dirName.substr(8);
            if (auto pos = repo.find("--"); pos != std::string::npos) repo.replace(pos, 2, "/");
            for (const auto& blob : sortedEntries(repoDir / "blobs"))
                if (blob.extension() == ".incomplete")
                    result.problems.push_back({blob, "partial blob (an interrupted Hugging Face download); skipped"});
            for (const auto& snapshot : sortedEntries(repoDir / "snapshots")) {
                std::error_code ec;
                if (!fs::is_directory(snapshot, ec)) continue;
                if (looksLikeModel(snapshot)) add(snapshot, "Hugging Face cache", repo, true);
                // whisper.cpp's repositories keep many ggml files side by side.
                for (const auto& file : sortedEntries(snapshot))
                    if (file.extension() == ".bin" && file.filename() != "model.bin" &&
                        file.filename() != "pytorch_model.bin")
                        add(file, "Hugging Face cache", repo, true);
            }
        }
    }

    // Models directly inside a folder: subdirectories and .bin files (the folder itself too).
    void folder(const fs::path& dir, const std::string& source) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) return;
        if (looksLikeModel(dir)) add(dir, source, "", true);
        for (const auto& entry : sortedEntries(dir)) {
            if (hidden(entry)) continue;
            if (fs::is_directory(entry, ec)) {
                if (looksLikeModel(entry)) add(entry, source, "", true);
            } else if (entry.extension() == ".bin") {
                add(entry, source, "", true);
            }
        }
    }
};

} // namespace

ScanLocations defaultScanLocations(const fs::path& modelsDirectoryOption, std::vector<fs::path> userFolders) {
    ScanLocations l;
    l.huggingFaceCaches = {huggingFaceCacheDirectory()};
    l.modelFolders = usualModelFolders();
    l.modelsDirectory = modelsDirectory(modelsDirectoryOption);
    l.userFolders = std::move(userFolders);
    if (const char* env = std::getenv("HEARSAY_MODEL_DIRS"); env && *env) {
        std::string list = env;
        for (size_t start = 0; start <= list.size();) {
            const size_t end = std::min(list.find(':', start), list.size());
            if (end > start) l.userFolders.emplace_back(list.substr(start, end - start));
            start = end + 1;
        }
    }
    return l;
}

ScanResult scanForModels(const ScanLocations& locations) {
    Scanner s;
    if (!locations.modelsDirectory.empty()) s.folder(locations.modelsDirectory, "models directory");
    for (const auto& root : locations.huggingFaceCaches) s.huggingFaceCache(root);
    for (const auto& f : locations.modelFolders) s.folder(f, "whisper.cpp/Buzz folder");
    for (const auto& f : locations.userFolders) s.folder(f, "folder");
    return std::move(s.result);
}

fs::path firstStartModel(const ScanLocations& locations, const std::string& preferred) {
    for (ModelFormat f : {ModelFormat::CTranslate2, ModelFormat::Ggml, ModelFormat::HuggingFace}) {
        const CatalogEntry* e = findCatalogEntry(preferred, f);
        if (!e || locations.modelsDirectory.empty()) continue;
        if (auto p = ModelStore(locations.modelsDirectory).installedPath(*e); !p.empty()) return p;
    }
    for (const auto& m : scanForModels(locations).models)
        if (m.model.sizeName == preferred) return m.model.path;
    return {};
}

} // namespace hearsay::hub
