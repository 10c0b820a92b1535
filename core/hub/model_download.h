// Downloads a catalog model from the hub (Hugging Face, a mirror, or a local server in tests)
// with libcurl: progress, resume of an interrupted file (HTTP Range; the partial file,
// ModelStore::partialFile, stays beside its target), size and SHA-256 checked before the file is renamed into place,
// cancel from another thread, a proxy (the caller's, e.g. the desktop's settings, else the
// environment's: libcurl reads http_proxy, https_proxy, all_proxy, no_proxy), HTTPS with the
// system's certificate authorities or a CA bundle named in CURL_CA_BUNDLE / SSL_CERT_FILE, a
// bearer token for gated repositories (dropped, with a warning, when the hub refuses it), the
// hub's redirects (302 to its CDN, 307 for a renamed repository), and every file of a model from
// one commit.
//
// Placement is atomic: a ggml model is its .bin, renamed from its partial file once verified; a
// directory model is assembled in the store's staging directory and renamed into place once every
// file is verified and the directory reads as a model (the layout is ModelStore's, model_store.h).
// Until then nothing in the models directory looks like a model (the scan skips the store's
// staging names), so a failed or partial download is never offered for loading.
#pragma once

#include "core/hub/model_catalog.h"
#include "core/hub/model_store.h"
#include "core/util/result.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace hearsay::hub {

struct DownloadProgress {
    std::string file;          // the file being fetched
    int fileIndex = 0;         // 0-based
    int fileCount = 0;
    uint64_t fileDone = 0;     // bytes of this file on disk (resumed bytes included)
    uint64_t fileTotal = 0;    // 0 while unknown
    uint64_t done = 0;         // all files
    uint64_t total = 0;        // the catalog's (or estimated) size of the model
    double bytesPerSecond = 0; // this transfer's average
};

struct DownloadOptions {
    std::string hubUrl;        // base URL; empty: hubBaseUrl()
    std::string token;         // bearer token; empty: none is sent
    std::function<void(const DownloadProgress&)> progress;  // called from the downloading thread
    const std::atomic<bool>* cancel = nullptr;               // set from any thread to stop
    // Called from the downloading thread with something the user should know though the download
    // went on (a saved token the hub refused).
    std::function<void(const std::string&)> warning;
    // A proxy URL ("http://host:3128", "socks5h://host:1080"); empty: the environment's, as
    // libcurl reads it. "direct" (or "DIRECT"): none, whatever the environment says.
    std::string proxy;
    // A PEM file of certificate authorities to trust instead of the system's; empty:
    // caBundleFromEnvironment().
    std::string caBundle;
    long connectTimeoutSeconds = 30;
    long stallSeconds = 60;    // a transfer slower than 1 byte/s for this long fails (and resumes later)
    // Transfers per file, counted: a cut transfer resumes, a partial file the server cannot resume
    // (416 past its end with other bytes, or Range ignored) starts over; then the file fails.
    int maxAttempts = 3;
};

struct FileRequest {
    std::string url;
    std::string repo;               // for messages: "ggerganov/whisper.cpp"
    std::string revision;           // for messages: the revision the URL names
    std::filesystem::path target;   // the final path; the partial file is ModelStore::partialFile(target)
    uint64_t expectedBytes = 0;     // 0: from the hub's X-Linked-Size or Content-Length
    std::string expectedSha256;     // empty: from the hub's X-Linked-Etag when it is a SHA-256
    bool optional = false;          // a 404 is an outcome (httpStatus 404, nothing written), not an error
    // Runs on the verified .part before the rename (a model check); an error removes the file.
    std::function<Result<void>(const std::filesystem::path&)> validate;
    // Called after each transfer in which the hub named its commit (X-Repo-Commit), whether the
    // transfer completed or not: a resumed download can then stay on that commit.
    std::function<void(const std::string& commit)> commitNamed;
};

struct FileOutcome {
    uint64_t bytes = 0;
    uint64_t resumedFrom = 0;       // bytes already there from an earlier try
    std::string sha256;
    bool hashChecked = false;       // false: no expected hash known (size checked only)
    int httpStatus = 0;             // of the last response (404 for a skipped optional file)
    std::string repoCommit;         // the hub's X-Repo-Commit: the commit the file was taken from
    bool tokenRefused = false;      // the token got a 401 and the file came without it
    int attempts = 0;               // transfers it took
};

// The CA bundle the environment names, as curl and the Hugging Face tools read it:
// $CURL_CA_BUNDLE, else $SSL_CERT_FILE; empty when neither is set (the system's authorities).
std::string caBundleFromEnvironment();

// One file, in at most options.maxAttempts transfers (a 401 with a token adds one without it).
// Error kinds: BadInput for everything but cancel (Cancelled).
Result<FileOutcome> downloadFile(const FileRequest& request, const DownloadOptions& options,
                                 const std::function<void(uint64_t done, uint64_t total, double rate)>& progress = {});

// Downloads `entry` into `modelsDir` (created when missing) and returns the installed path (the
// directory, or the .bin). An installed model is returned at once. Every file comes from the
// commit the hub named for the first one (recorded in the model's origin, model_store.h).
Result<std::filesystem::path> downloadModel(const CatalogEntry& entry, const std::filesystem::path& modelsDir,
                                            const DownloadOptions& options);

} // namespace hearsay::hub
