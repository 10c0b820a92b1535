// hearsay-cli models: the model catalog (list, download, remove, path), the models already on
// the disk (scan), and the official sizes' dimensions (sizes).
#include "app/cli/command.h"
#include "core/hub/hub_paths.h"
#include "core/hub/model_catalog.h"
#include "core/hub/model_download.h"
#include "core/hub/model_scan.h"
#include "core/model/whisper_config.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <sstream>

namespace hearsay::cli {
namespace {
namespace fs = std::filesystem;

void declareModels(CLI::App& c) {
    c.footer("actions:\n"
             "  list          the catalog, each entry marked installed (models directory) or found (elsewhere)\n"
             "  download NAME downloads NAME (e.g. tiny.en, large-v3-turbo, base.en-q5_1) from the hub\n"
             "  remove NAME   removes NAME from the models directory (and any partial download of it)\n"
             "  path NAME     prints the path of NAME (installed, or found by the scan)\n"
             "  scan          lists every loadable Whisper model found on the disk, and what was skipped\n"
             "  sizes         the official Whisper sizes and their dimensions");
    addPositional(c, "ACTION", "list (default), download, remove, path, scan or sizes")
        ->check(CLI::IsMember({"list", "download", "remove", "path", "scan", "sizes"}));
    addPositional(c, "NAME", "the model (download, remove, path)");
    addChoice(c, "--format", {"hf", "ct2", "ggml"},
              "the format (default: ct2, else ggml, else hf; quantised names are ggml)");
    addText(c, "--revision", "REV",
            "download REV (a commit, a branch such as main) instead of the catalog's pinned commit; the catalog's "
            "sizes and hashes then do not apply, the hub's are checked");
    addText(c, "--hub-url", "URL", "the hub (default $HEARSAY_HUB_URL, else $HF_ENDPOINT, else https://huggingface.co)");
    addText(c, "--models-dir", "DIR", "where downloads go (default $HEARSAY_MODELS_DIR, else ~/.local/share/hearsay/models)");
    addText(c, "--dir", "DIR[:DIR...]", "more folders to scan (also $HEARSAY_MODEL_DIRS)");
    addFlag(c, "--quiet", "no progress line");
}

std::string human(uint64_t bytes) {
    char buf[32];
    if (bytes >= 1000ull * 1000 * 1000) std::snprintf(buf, sizeof buf, "%.2f GB", double(bytes) / 1e9);
    else if (bytes < 1000 * 1000) std::snprintf(buf, sizeof buf, "%.0f kB", double(bytes) / 1e3);
    else std::snprintf(buf, sizeof buf, "%.0f MB", double(bytes) / 1e6);
    return buf;
}

std::vector<fs::path> splitFolders(const std::string& list) {
    std::vector<fs::path> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ':'))
        if (!item.empty()) out.emplace_back(item);
    return out;
}

// Where a catalog entry sits among the scan's finds (not counting the models directory).
const hub::FoundModel* foundElsewhere(const hub::CatalogEntry& e, const hub::ScanResult& scan) {
    for (const auto& f : scan.models) {
        if (f.source == "models directory") continue;
        if (f.model.format != e.format) continue;
        if (e.format == ModelFormat::Ggml) {
            if (f.model.path.filename() == e.installName()) return &f;
        } else if (f.repo == e.repo || (f.repo.empty() && f.model.sizeName == e.size)) {
            return &f;  // the repository's snapshot, or a folder holding a model of that size
        }
    }
    return nullptr;
}

std::atomic<bool> g_cancel{false};
extern "C" void onInterrupt(int) { g_cancel.store(true); }

int list(const fs::path& modelsDir, const hub::ScanResult& scan, const std::string& hubUrlOption) {
    std::printf("hub: %s (%s)\n", hub::hubBaseUrl(hubUrlOption).c_str(), hub::hubBaseUrlSource(hubUrlOption).c_str());
    std::printf("%-22s %-5s %-5s %-9s %9s %9s %7s %-12s %-14s %s\n", "name", "fmt", "prec", "revision", "disk", "memory",
                "params", "languages", "speed", "status");
    for (const auto& e : hub::catalog()) {
        std::string status = "-";
        if (auto p = hub::installedPath(e, modelsDir); !p.empty()) status = "installed";
        else if (auto* f = foundElsewhere(e, scan)) status = "found: " + f->model.path.string();
        const std::string disk = (e.sizesKnown() ? "" : "~") + human(e.diskBytes);
        // A pinned commit by its first 8 digits; "main!" where none is pinned (the footnote says what that means).
        const std::string revision = e.pinned() ? e.revision.substr(0, 8) : e.revision + "!";
        std::printf("%-22s %-5s %-5s %-9s %9s %9s %6dM %-12s %-14s %s\n", e.name.c_str(),
                    std::string(hub::formatWord(e.format)).c_str(), e.precision.c_str(), revision.c_str(), disk.c_str(),
                    ("~" + human(e.memoryBytes)).c_str(), e.parametersMillions, e.languages().c_str(), e.speed.c_str(),
                    status.c_str());
    }
    std::printf("models directory: %s\n"
                "(~: estimated. revision: the commit each model is downloaded from, with the sizes and SHA-256 "
                "recorded for it;\n main!: no commit pinned yet, the files come from the commit main is at then, "
                "checked against the hub's X-Linked-Size / X-Linked-Etag)\n",
                modelsDir.string().c_str());
    return 0;
}

int download(const hub::CatalogEntry& e, const fs::path& modelsDir, const Options& options) {
#ifdef HEARSAY_HAVE_CURL
    hub::DownloadOptions d;
    d.hubUrl = hub::hubBaseUrl(options.value("hub-url", ""));
    d.token = hub::huggingFaceToken();
    d.cancel = &g_cancel;
    const bool quiet = options.has("quiet");
    bool printed = false;
    auto lastPrint = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    std::string lastFile;
    uint64_t lastDone = 0;
    d.progress = [&](const hub::DownloadProgress& p) {
        if (quiet || p.fileDone == 0) return;
        const auto now = std::chrono::steady_clock::now();
        const bool fileDone = p.fileTotal && p.fileDone == p.fileTotal;
        if (now - lastPrint < std::chrono::milliseconds(200) && !fileDone) return;  // a few lines a second
        if (p.file == lastFile && p.fileDone == lastDone) return;
        lastPrint = now;
        lastFile = p.file;
        lastDone = p.fileDone;
        const double percent = p.fileTotal ? 100.0 * double(p.fileDone) / double(p.fileTotal) : 0.0;
        std::fprintf(stderr, "\r%s: %s (%d/%d) %s / %s  %3.0f%%  %.1f MB/s   ", e.installName().c_str(), p.file.c_str(),
                     p.fileIndex + 1, p.fileCount, human(p.fileDone).c_str(),
                     p.fileTotal ? human(p.fileTotal).c_str() : "?", percent, p.bytesPerSecond / 1e6);
        printed = true;
    };
    d.warning = [&](const std::string& message) {
        if (printed) std::fprintf(stderr, "\n");
        printed = false;
        std::fprintf(stderr, "hearsay-cli models download: warning: %s\n", message.c_str());
    };
    g_cancel.store(false);
    auto previous = std::signal(SIGINT, onInterrupt);
    auto path = hub::downloadModel(e, modelsDir, d);
    std::signal(SIGINT, previous);
    if (printed) std::fprintf(stderr, "\n");
    if (!path) {
        std::fprintf(stderr, "hearsay-cli models download: %s\n", path.message().c_str());
        return path.kind() == ErrorKind::Cancelled ? 130 : 1;
    }
    std::printf("%s\n", path->string().c_str());
    return 0;
#else
    (void)e;
    (void)modelsDir;
    (void)options;
    std::fprintf(stderr, "hearsay-cli models download: this build has no downloader (libcurl was not found; "
                         "install libcurl4-openssl-dev and configure again)\n");
    return 1;
#endif
}

int runModels(const Options& options) {
    const auto& pos = options.positional();
    const std::string verb = pos.empty() ? "list" : pos[0];
    std::optional<ModelFormat> format;
    if (auto f = options.value("format")) {
        format = hub::formatFromWord(*f);
        if (!format) {
            std::fprintf(stderr, "hearsay-cli models: --format must be hf, ct2 or ggml, not '%s'\n", f->c_str());
            return 2;
        }
    }
    const fs::path modelsDir = hub::modelsDirectory(options.value("models-dir", ""));
    auto scanLocations = hub::defaultScanLocations(modelsDir, splitFolders(options.value("dir", "")));

    if (verb == "sizes") {
        std::printf("%-16s %6s %7s %7s %6s %6s %6s\n", "name", "width", "layers", "dec.l", "heads", "mels", "vocab");
        for (const auto& name : WhisperConfig::officialNames()) {
            auto c = WhisperConfig::fromName(name).value();
            std::printf("%-16s %6d %7d %7d %6d %6d %6d\n", name.c_str(), c.nAudioState, c.nAudioLayer, c.nTextLayer,
                        c.nAudioHead, c.nMels, c.nVocab);
        }
        return 0;
    }
    if (verb == "list") return list(modelsDir, hub::scanForModels(scanLocations), options.value("hub-url", ""));
    if (verb == "scan") {
        auto scan = hub::scanForModels(scanLocations);
        for (const auto& f : scan.models)
            std::printf("%-18s %-5s %9s  %-26s %s%s\n", f.model.sizeName.c_str(),
                        std::string(hub::formatWord(f.model.format)).c_str(), human(f.model.bytes).c_str(),
                        f.source.c_str(), f.model.path.string().c_str(), f.repo.empty() ? "" : ("  (" + f.repo + ")").c_str());
        for (const auto& p : scan.problems) std::printf("skipped: %s\n", p.message.c_str());
        std::printf("%zu model(s) found, %zu skipped\n", scan.models.size(), scan.problems.size());
        return 0;
    }
    if (verb != "download" && verb != "remove" && verb != "path") {
        std::fprintf(stderr, "hearsay-cli models: unknown action '%s' (see --help)\n", verb.c_str());
        return 2;
    }
    if (pos.size() != 2) {
        std::fprintf(stderr, "hearsay-cli models %s: give one model name (see hearsay-cli models list)\n", verb.c_str());
        return 2;
    }
    const std::string& name = pos[1];
    const hub::CatalogEntry* entry = hub::findCatalogEntry(name, format);
    if (!entry) {
        std::fprintf(stderr, "hearsay-cli models %s: no catalog entry '%s'%s (see hearsay-cli models list)\n", verb.c_str(),
                     name.c_str(), format ? (" in format " + std::string(hub::formatWord(*format))).c_str() : "");
        return 2;
    }
    if (verb == "download") {
        if (auto revision = options.value("revision"); revision && !revision->empty())
            return download(entry->atRevision(*revision), modelsDir, options);
        return download(*entry, modelsDir, options);
    }
    if (verb == "remove") {
        // Without --format: every installed format of the name.
        int removed = 0;
        for (const auto& e : hub::catalog()) {
            if (e.name != name || (format && e.format != *format)) continue;
            auto r = hub::removeModel(e, modelsDir);
            if (!r) {
                std::fprintf(stderr, "hearsay-cli models remove: %s\n", r.message().c_str());
                return 1;
            }
            if (r.value()) {
                std::printf("removed %s\n", (modelsDir / e.installName()).string().c_str());
                ++removed;
            }
        }
        if (removed == 0) {
            std::fprintf(stderr, "hearsay-cli models remove: %s is not in %s\n", name.c_str(), modelsDir.string().c_str());
            return 1;
        }
        return 0;
    }
    // path
    for (const auto& e : hub::catalog()) {
        if (e.name != name || (format && e.format != *format)) continue;
        if (auto p = hub::installedPath(e, modelsDir); !p.empty()) {
            std::printf("%s\n", p.string().c_str());
            return 0;
        }
    }
    auto scan = hub::scanForModels(scanLocations);
    for (const auto& e : hub::catalog()) {
        if (e.name != name || (format && e.format != *format)) continue;
        if (auto* f = foundElsewhere(e, scan)) {
            std::printf("%s\n", f->model.path.string().c_str());
            return 0;
        }
    }
    // A model of that size found elsewhere without a repository (a folder of models).
    for (const auto& f : scan.models) {
        if (f.model.sizeName == name && (!format || f.model.format == *format)) {
            std::printf("%s\n", f.model.path.string().c_str());
            return 0;
        }
    }
    std::fprintf(stderr, "hearsay-cli models path: %s is neither installed nor found (hearsay-cli models download %s)\n",
                 name.c_str(), name.c_str());
    return 1;
}

} // namespace

HEARSAY_CLI_COMMAND(models, "models", "the model catalog: list, download, remove, path, scan (and sizes)", declareModels,
                    runModels);

} // namespace hearsay::cli
