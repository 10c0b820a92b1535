// A catalog model: its files one after the other, assembled beside the models directory's
// visible entries and renamed into place once complete and readable.
#include "core/hub/model_download.h"

#include "core/hub/model_probe.h"

#include <system_error>

namespace hearsay::hub {
namespace fs = std::filesystem;

Result<fs::path> downloadModel(const CatalogEntry& entry, const fs::path& modelsDir, const DownloadOptions& options) {
    const ModelStore store(modelsDir);
    if (auto installed = store.installedPath(entry); !installed.empty()) return installed;
    std::error_code ec;
    fs::create_directories(modelsDir, ec);
    if (ec) return makeError("cannot create the models directory " + modelsDir.string() + ": " + ec.message());

    const std::string base = options.hubUrl.empty() ? hubBaseUrl() : options.hubUrl;
    const bool single = entry.format == ModelFormat::Ggml;
    const fs::path final = store.modelPath(entry);
    const fs::path staging = store.stagingPath(entry);
    const fs::path partFile = ModelStore::partialFile(final);

    // The commit the first file came from; a resumed download goes on from the one it recorded.
    ModelOrigin origin{base, entry.repo, entry.revision, {}};
    if (fs::exists(single ? partFile : staging, ec)) {
        if (auto earlier = store.readOrigin(entry); earlier && earlier->repo == entry.repo &&
                                                         earlier->revision == entry.revision)
            origin.commit = earlier->commit;
    }
    if (!single) {
        fs::create_directories(staging, ec);
        if (ec) return makeError("cannot create " + staging.string() + ": " + ec.message());
    }

    DownloadProgress p;
    p.fileCount = int(entry.files.size());
    p.total = entry.diskBytes;
    uint64_t doneBefore = 0;
    DownloadOptions fileOptions = options;  // loses the token once the hub refuses it
    for (size_t i = 0; i < entry.files.size(); ++i) {
        const CatalogFile& file = entry.files[i];
        FileRequest request;
        CatalogEntry at = entry;
        if (!origin.commit.empty()) at.revision = origin.commit;
        request.url = hubFileUrl(base, at, file);
        request.repo = entry.repo;
        request.revision = at.revision;
        request.target = single ? final : staging / file.path;
        request.expectedBytes = file.bytes;
        request.expectedSha256 = file.sha256;
        request.optional = file.optional;
        Result<void> recorded;
        if (origin.commit.empty()) request.commitNamed = [&](const std::string& commit) {
            if (!origin.commit.empty()) return;
            origin.commit = commit;
            recorded = store.writeOrigin(entry, origin);
        };
        if (single) request.validate = [](const fs::path& part) -> Result<void> {
            auto probed = probeModel(part);
            if (!probed) return probed.error();
            return {};
        };
        p.file = file.path;
        p.fileIndex = int(i);
        if (fs::exists(request.target, ec)) {  // verified in an earlier run
            doneBefore += fs::file_size(request.target, ec);
            continue;
        }
        auto outcome = downloadFile(request, fileOptions, [&](uint64_t done, uint64_t total, double rate) {
            if (!options.progress) return;
            p.fileDone = done;
            p.fileTotal = total;
            p.done = doneBefore + done;
            p.bytesPerSecond = rate;
            if (p.done > p.total) p.total = p.done;
            options.progress(p);
        });
        if (!recorded) return recorded.error().prefixed(entry.installName() + ": ");
        if (!outcome) {
            if (!single && fs::is_empty(staging, ec)) fs::remove(staging, ec);  // nothing to resume
            return outcome.error().prefixed(entry.installName() + ": ");
        }
        if (outcome->tokenRefused && !fileOptions.token.empty()) {
            fileOptions.token.clear();
            if (options.warning)
                options.warning("your saved hub token was refused (expired?); " + entry.repo +
                                " is public and was downloaded without it. Renew the token (HF_TOKEN or "
                                "~/.cache/huggingface/token) or remove it.");
        }
        doneBefore += outcome->bytes;
    }
    if (auto w = store.writeOrigin(entry, origin); !w) return w.error().prefixed(entry.installName() + ": ");
    if (single) return final;

    auto probed = probeModel(staging);
    if (!probed) {
        return probed.error().prefixed(entry.installName() + ": the downloaded files do not form a model (kept in " +
                                       staging.string() + "): ");
    }
    fs::rename(staging, final, ec);
    if (ec) return makeError("cannot move " + staging.string() + " to " + final.string() + ": " + ec.message());
    return final;
}

} // namespace hearsay::hub
