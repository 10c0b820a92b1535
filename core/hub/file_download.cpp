// One file over HTTP(S) with libcurl: resume, verification, atomic rename, clear errors, and a
// counted number of transfers (a resume that cannot go on starts over; it is never repeated as is).
#include "core/hub/model_download.h"

#include "core/hub/curl_library.h"
#include "core/hub/sha256.h"
#include "core/util/strings.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace hearsay::hub {
namespace fs = std::filesystem;
namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// An ETag that is a SHA-256 (Hugging Face's X-Linked-Etag of an LFS file): "abc..." or W/"abc...".
std::string sha256FromEtag(std::string etag) {
    if (etag.starts_with("W/")) etag = etag.substr(2);
    if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
    etag = lower(etag);
    if (etag.size() != 64) return {};
    for (char c : etag)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return {};
    return etag;
}

std::string hostOf(const std::string& url) {
    auto start = url.find("://");
    start = start == std::string::npos ? 0 : start + 3;
    auto end = url.find_first_of("/:?", start);
    return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string megabytes(uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MB", double(bytes) / 1e6);
    return buf;
}

struct Transfer {
    const FileRequest* request = nullptr;
    const DownloadOptions* options = nullptr;
    const std::function<void(uint64_t, uint64_t, double)>* progress = nullptr;
    fs::path part;
    std::FILE* out = nullptr;
    Sha256 hash;
    uint64_t have = 0;          // bytes in the part file
    uint64_t resumedFrom = 0;   // > 0: this transfer asked for "Range: bytes=resumedFrom-"
    bool started = false;       // the body of a 2xx response is being written
    bool discard = false;       // an error response's body
    int writeErrno = 0;
    std::string pinConflict;    // non-empty: the hub's file is not the pinned one (the transfer was stopped)
    // The last response's headers (a redirect's are replaced by the next response's).
    long status = 0;
    uint64_t contentLength = 0;
    bool haveContentLength = false;
    uint64_t rangeTotal = 0;     // Content-Range: bytes a-b/TOTAL (or */TOTAL of a 416)
    std::string errorCode;       // X-Error-Code: RepoNotFound, RevisionNotFound, EntryNotFound, GatedRepo
    // Kept across redirects: the hub sends them on its own response, before the CDN's.
    uint64_t linkedSize = 0;     // X-Linked-Size
    std::string linkedEtag;      // X-Linked-Etag
    std::string repoCommit;      // X-Repo-Commit
    std::chrono::steady_clock::time_point startTime = std::chrono::steady_clock::now();
    uint64_t bytesThisRun = 0;

    uint64_t expectedTotal() const {
        if (request->expectedBytes) return request->expectedBytes;
        if (linkedSize) return linkedSize;
        if (rangeTotal) return rangeTotal;
        if (haveContentLength) return status == 206 ? resumedFrom + contentLength : contentLength;
        return 0;
    }
};

// What the hub says it serves, against the catalog's pin: a message when they differ, else empty.
std::string pinConflictOf(const Transfer& t) {
    const FileRequest& r = *t.request;
    const std::string name = r.target.filename().string();
    uint64_t served = t.linkedSize ? t.linkedSize : t.rangeTotal;
    if (!served && t.status == 200 && t.haveContentLength) served = t.contentLength;
    const std::string where = " (" + r.url + ")";
    if (r.expectedBytes && served && served != r.expectedBytes)
        return name + " is " + std::to_string(served) + " bytes there, this version knows " +
               std::to_string(r.expectedBytes) + " bytes" + where;
    const std::string servedSha = sha256FromEtag(t.linkedEtag);
    if (!r.expectedSha256.empty() && !servedSha.empty() && servedSha != lower(r.expectedSha256))
        return name + " has SHA-256 " + servedSha + " there, this version knows " + lower(r.expectedSha256) + where;
    return {};
}

std::string differentFile(const std::string& conflict) {
    return "the hub now serves a different file than this version of Hearsay knows: " + conflict +
           "; nothing was kept (the catalog's pin needs an update)";
}

size_t onHeader(char* data, size_t size, size_t count, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const size_t bytes = size * count;
    std::string line(data, bytes);
    if (line.starts_with("HTTP/")) {
        // A new response (the first, or after a redirect): its own status and length.
        const auto space = line.find(' ');
        t->status = space == std::string::npos ? 0 : std::strtol(line.c_str() + space + 1, nullptr, 10);
        t->haveContentLength = false;
        t->rangeTotal = 0;
        t->errorCode.clear();
        return bytes;
    }
    const auto colon = line.find(':');
    if (colon == std::string::npos) return bytes;
    const std::string name = lower(stripWhitespace(line.substr(0, colon)));
    const std::string value = stripWhitespace(line.substr(colon + 1));
    if (name == "content-length") {
        t->contentLength = std::strtoull(value.c_str(), nullptr, 10);
        t->haveContentLength = true;
    } else if (name == "x-linked-size") {
        t->linkedSize = std::strtoull(value.c_str(), nullptr, 10);
    } else if (name == "x-linked-etag") {
        t->linkedEtag = value;
    } else if (name == "x-repo-commit") {
        t->repoCommit = lower(value);
    } else if (name == "x-error-code") {
        t->errorCode = value;
    } else if (name == "content-range") {
        if (auto slash = value.find('/'); slash != std::string::npos && value[slash + 1] != '*')
            t->rangeTotal = std::strtoull(value.c_str() + slash + 1, nullptr, 10);
    }
    return bytes;
}

size_t onBody(char* data, size_t size, size_t count, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const size_t bytes = size * count;
    if (!t->started && !t->discard) {
        if (t->status == 200 || t->status == 206) {
            t->pinConflict = pinConflictOf(*t);
            if (!t->pinConflict.empty()) return 0;  // not the pinned file: fetch none of it
            if (t->status == 200 && t->have > 0) {
                // A whole file where a range was asked for: it replaces the part.
                t->have = 0;
                t->resumedFrom = 0;
                t->hash = Sha256();
                t->out = std::fopen(t->part.c_str(), "wb");
            } else {
                t->out = std::fopen(t->part.c_str(), "ab");
            }
            if (!t->out) {
                t->writeErrno = errno;
                return 0;
            }
            t->started = true;
        } else {
            t->discard = true;
        }
    }
    if (t->discard) return bytes;
    if (std::fwrite(data, 1, bytes, t->out) != bytes) {
        t->writeErrno = errno ? errno : EIO;
        return 0;
    }
    t->hash.update(data, bytes);
    t->have += bytes;
    t->bytesThisRun += bytes;
    return bytes;
}

int onProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* t = static_cast<Transfer*>(user);
    if (t->options->cancel && t->options->cancel->load()) return 1;
    if (t->progress && *t->progress) {
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t->startTime).count();
        (*t->progress)(t->have, t->expectedTotal(), seconds > 0 ? double(t->bytesThisRun) / seconds : 0.0);
    }
    return 0;
}

// Hashes the bytes already in the part file, so the digest covers the whole file after a resume.
Result<uint64_t> hashExisting(const fs::path& part, Sha256& hash) {
    std::FILE* f = std::fopen(part.c_str(), "rb");
    if (!f) return makeError("cannot read the partial file " + part.string() + ": " + std::strerror(errno));
    std::vector<char> buffer(size_t(1) << 20);
    uint64_t total = 0;
    size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), f)) > 0) {
        hash.update(buffer.data(), n);
        total += n;
    }
    std::fclose(f);
    return total;
}

// The user's words for an HTTP error. The hub names the cause in X-Error-Code; a repository
// that does not exist answers 401 (as a private one would), a missing file or revision 404.
std::string httpError(long status, const std::string& errorCode, const FileRequest& request, bool tokenSent,
                      bool tokenRefused) {
    const std::string s = std::to_string(status);
    const std::string& url = request.url;
    const std::string repo = request.repo.empty() ? url : request.repo;
    const std::string hubHint = " — check the model name and the hub URL (--hub-url, HEARSAY_HUB_URL, HF_ENDPOINT)";
    if (errorCode == "RepoNotFound")
        return "the repository " + repo + " does not exist on the hub (HTTP " + s + "): " + url + hubHint +
               (tokenRefused ? "; your saved hub token was refused too (expired?)" : "");
    if (errorCode == "RevisionNotFound")
        return "the revision " + request.revision + " of " + repo + " does not exist on the hub (HTTP " + s + "): " + url;
    if (status == 404)
        return "not found on the hub (HTTP 404): " + url + " — check the model name, its revision and the hub URL "
               "(--hub-url, HEARSAY_HUB_URL, HF_ENDPOINT)";
    if (status == 401 || status == 403) {
        std::string what = "access denied (HTTP " + s + "): " + url + " — the repository is gated or private: accept its terms on the hub, then ";
        if (tokenRefused) return what + "renew the saved hub token: it was refused (expired?)";
        return what + (tokenSent ? "check that the token (HF_TOKEN or ~/.cache/huggingface/token) has access to it"
                                 : "set HF_TOKEN or log in so that ~/.cache/huggingface/token holds a token");
    }
    if (status >= 500) return "the hub failed (HTTP " + s + ") for " + url + "; try again later";
    if (status == 429) return "the hub is rate-limiting this machine (HTTP 429) for " + url + "; try again later";
    return "unexpected answer (HTTP " + s + ") for " + url;
}

// One transfer's end: the verified file, or what to do next.
struct Attempt {
    enum class Next { Done, Resume, StartOver, WithoutToken } next = Next::Done;
    FileOutcome outcome;  // Done
    std::string why;      // Resume, StartOver: what happened (the final message when no attempt is left)
};

Result<Attempt> transferOnce(const CurlLibrary& lib, const FileRequest& request, const DownloadOptions& options,
                             const std::string& token, bool tokenRefused,
                             const std::function<void(uint64_t, uint64_t, double)>& progress) {
    Transfer t;
    t.request = &request;
    t.options = &options;
    t.progress = &progress;
    t.part = ModelStore::partialFile(request.target);

    std::error_code ec;
    if (fs::is_regular_file(t.part, ec)) {  // (a device standing in for the file is written, never read)
        auto had = hashExisting(t.part, t.hash);
        if (!had) return had.error();
        t.have = t.resumedFrom = had.value();
        if (request.expectedBytes && t.have > request.expectedBytes) {  // not the file we want: start over
            fs::remove(t.part, ec);
            t.have = t.resumedFrom = 0;
            t.hash = Sha256();
        }
    }
    const bool resuming = t.have > 0;

    CURL* curl = lib.easyInit();
    if (!curl) return makeError("cannot start a transfer (libcurl failed to initialise)");
    char errorText[CURL_ERROR_SIZE] = {};
    curl_slist* headers = nullptr;
    if (!token.empty()) headers = lib.slistAppend(headers, ("Authorization: Bearer " + token).c_str());
    lib.easySetopt(curl, CURLOPT_URL, request.url.c_str());
    // The hub answers 302 to its CDN (another host: libcurl does not send the token there) and 307
    // for a renamed repository.
    lib.easySetopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    lib.easySetopt(curl, CURLOPT_MAXREDIRS, 10L);
    lib.easySetopt(curl, CURLOPT_USERAGENT, "hearsay/0.1 (model manager)");
    lib.easySetopt(curl, CURLOPT_ERRORBUFFER, errorText);
    lib.easySetopt(curl, CURLOPT_CONNECTTIMEOUT, options.connectTimeoutSeconds);
    lib.easySetopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    lib.easySetopt(curl, CURLOPT_LOW_SPEED_TIME, options.stallSeconds);
    lib.easySetopt(curl, CURLOPT_NOSIGNAL, 1L);
    lib.easySetopt(curl, CURLOPT_HEADERFUNCTION, onHeader);
    lib.easySetopt(curl, CURLOPT_HEADERDATA, &t);
    lib.easySetopt(curl, CURLOPT_WRITEFUNCTION, onBody);
    lib.easySetopt(curl, CURLOPT_WRITEDATA, &t);
    lib.easySetopt(curl, CURLOPT_NOPROGRESS, 0L);
    lib.easySetopt(curl, CURLOPT_XFERINFOFUNCTION, onProgress);
    lib.easySetopt(curl, CURLOPT_XFERINFODATA, &t);
    if (headers) lib.easySetopt(curl, CURLOPT_HTTPHEADER, headers);
    if (resuming) lib.easySetopt(curl, CURLOPT_RESUME_FROM_LARGE, curl_off_t(t.have));
    if (options.proxy == "direct" || options.proxy == "DIRECT") lib.easySetopt(curl, CURLOPT_PROXY, "");
    else if (!options.proxy.empty()) lib.easySetopt(curl, CURLOPT_PROXY, options.proxy.c_str());
    const std::string caBundle = options.caBundle.empty() ? caBundleFromEnvironment() : options.caBundle;
    if (!caBundle.empty()) lib.easySetopt(curl, CURLOPT_CAINFO, caBundle.c_str());

    const CURLcode code = lib.easyPerform(curl);
    long status = 0;
    lib.easyGetinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    lib.slistFreeAll(headers);
    lib.easyCleanup(curl);

    if (!t.repoCommit.empty() && request.commitNamed) request.commitNamed(t.repoCommit);
    bool closeFailed = false;
    if (t.out) {
        if (std::fflush(t.out) != 0 && !t.writeErrno) t.writeErrno = errno;
        if (std::fclose(t.out) != 0) closeFailed = true;
        if (closeFailed && !t.writeErrno) t.writeErrno = errno;
    }

    const std::string host = hostOf(request.url);
    const std::string name = request.target.filename().string();
    const std::string kept = t.have > 0 ? "; " + megabytes(t.have) + " kept in " + t.part.string() +
                                              ", the next download resumes from there"
                                        : "";
    Attempt next;
    auto startOver = [&](std::string why) -> Result<Attempt> {
        fs::remove(t.part, ec);
        next.next = Attempt::Next::StartOver;
        next.why = std::move(why);
        return next;
    };
    if (!t.pinConflict.empty()) {
        fs::remove(t.part, ec);
        return makeError(differentFile(t.pinConflict));
    }
    if (t.writeErrno) {
        const bool full = t.writeErrno == ENOSPC || t.writeErrno == EDQUOT;
        return makeError("cannot write " + t.part.string() + ": " + std::strerror(t.writeErrno) +
                         (full ? " (free some space, or choose another models directory)" : ""));
    }
    if (code == CURLE_ABORTED_BY_CALLBACK) return makeError("download of " + name + " cancelled" + kept, ErrorKind::Cancelled);
    if (code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_RESOLVE_PROXY)
        return makeError("cannot resolve the host name '" + host + "' (no network, a DNS failure, or a wrong hub URL): " +
                         (errorText[0] ? errorText : lib.easyStrerror(code)));
    if (code == CURLE_COULDNT_CONNECT)
        return makeError("cannot connect to " + host + " (offline, or the server is down): " +
                         (errorText[0] ? errorText : lib.easyStrerror(code)));
    if (code == CURLE_PEER_FAILED_VERIFICATION)
        return makeError("the certificate of " + host + " is not trusted (" +
                         (errorText[0] ? errorText : lib.easyStrerror(code)) +
                         "): if a proxy or mirror uses its own certificate authority, name a PEM file holding it in "
                         "CURL_CA_BUNDLE or SSL_CERT_FILE" +
                         (caBundle.empty() ? std::string() : " (now: " + caBundle + ")"));
    if (code == CURLE_SSL_CACERT_BADFILE)
        return makeError("cannot use the CA bundle " + caBundle + " (from CURL_CA_BUNDLE or SSL_CERT_FILE): " +
                         (errorText[0] ? errorText : lib.easyStrerror(code)));
    if (code == CURLE_SSL_CONNECT_ERROR)
        return makeError("the secure connection to " + host + " failed (TLS handshake): " +
                         (errorText[0] ? errorText : lib.easyStrerror(code)));
    if (code == CURLE_OPERATION_TIMEDOUT)
        return makeError("the connection to " + host + " timed out or stalled while fetching " + name + kept);
    // A 200 without Content-Range to a resume: the server ignores Range; libcurl stops at once.
    if (code == CURLE_RANGE_ERROR && resuming)
        return startOver("the server does not resume " + name + " (it ignored the byte range and sent the whole file)");
    // 416 to a resume: the part is as long as the file or longer. Complete when it is the file.
    const bool pastEnd = status == 416 && resuming;
    if (pastEnd) {
        t.pinConflict = pinConflictOf(t);
        if (!t.pinConflict.empty()) {
            fs::remove(t.part, ec);
            return makeError(differentFile(t.pinConflict));
        }
        const uint64_t total = t.expectedTotal();
        if (!total || t.have != total)
            return startOver("the server has no bytes past the " + std::to_string(t.have) + " kept of " + name +
                             (total ? " (the file is " + std::to_string(total) + " bytes)" : std::string()));
    }
    const bool httpOk = status == 200 || status == 206 || pastEnd;
    if (code == CURLE_OK && !httpOk) {
        if (status == 404 && request.optional && t.errorCode != "RepoNotFound" && t.errorCode != "RevisionNotFound") {
            next.outcome.httpStatus = 404;
            return next;
        }
        if (status == 401 && !token.empty()) {
            next.next = Attempt::Next::WithoutToken;
            return next;
        }
        return makeError(httpError(status, t.errorCode, request, !token.empty(), tokenRefused));
    }
    if (code == CURLE_PARTIAL_FILE || code == CURLE_RECV_ERROR || code == CURLE_GOT_NOTHING ||
        code == CURLE_SEND_ERROR) {
        const uint64_t total = t.expectedTotal();
        next.next = Attempt::Next::Resume;
        next.why = "the connection to " + host + " was cut after " + megabytes(t.have) +
                   (total ? " of " + megabytes(total) : std::string()) + " of " + name + kept;
        return next;
    }
    if (code != CURLE_OK)
        return makeError("cannot download " + request.url + ": " + (errorText[0] ? errorText : lib.easyStrerror(code)) + kept);

    // Verification: size, then SHA-256, then the caller's check; only then the rename. A part that
    // began in an earlier transfer and fails starts over: its first bytes may be another file's.
    const uint64_t expected = t.expectedTotal();
    const uint64_t onDisk = fs::exists(t.part, ec) ? fs::file_size(t.part, ec) : 0;
    if (expected && onDisk < expected) {
        next.next = Attempt::Next::Resume;
        next.why = "the server ended " + name + " after " + megabytes(onDisk) + " of " + megabytes(expected) + kept;
        return next;
    }
    if (expected && onDisk > expected) {
        const std::string why = name + " is " + std::to_string(onDisk) + " bytes, expected " + std::to_string(expected);
        if (t.resumedFrom > 0) return startOver(why);
        fs::remove(t.part, ec);
        return makeError(why + "; the download was removed");
    }
    std::string wanted = request.expectedSha256.empty() ? sha256FromEtag(t.linkedEtag) : lower(request.expectedSha256);
    FileOutcome& outcome = next.outcome;
    outcome.bytes = onDisk;
    outcome.resumedFrom = t.resumedFrom;
    outcome.sha256 = t.hash.hexDigest();
    outcome.httpStatus = int(status);
    outcome.repoCommit = t.repoCommit;
    if (!wanted.empty()) {
        if (outcome.sha256 != wanted) {
            if (resuming) return startOver("the SHA-256 of " + name + " after a resume is not the expected " + wanted);
            fs::remove(t.part, ec);
            return makeError("SHA-256 mismatch for " + name + ": expected " + wanted + ", got " + outcome.sha256 +
                             "; the download was removed (the server sent other bytes than the hub lists)");
        }
        outcome.hashChecked = true;
    }
    if (request.validate) {
        if (auto v = request.validate(t.part); !v) {
            fs::remove(t.part, ec);
            return v.error().prefixed("the downloaded " + name + " is not a usable model (removed): ");
        }
    }
    fs::rename(t.part, request.target, ec);
    if (ec) return makeError("cannot move " + t.part.string() + " to " + request.target.string() + ": " + ec.message());
    return next;
}

} // namespace

std::string caBundleFromEnvironment() {
    for (const char* name : {"CURL_CA_BUNDLE", "SSL_CERT_FILE"})
        if (const char* v = std::getenv(name); v && *v) return v;
    return {};
}

Result<FileOutcome> downloadFile(const FileRequest& request, const DownloadOptions& options,
                                 const std::function<void(uint64_t, uint64_t, double)>& progress) {
    const auto lib = curlLibrary();
    if (!lib) return lib.error();
    const int attempts = std::max(1, options.maxAttempts);
    std::string token = options.token;
    bool tokenRefused = false;
    std::string last;
    for (int i = 1; i <= attempts; ++i) {
        auto attempt = transferOnce(*lib.value(), request, options, token, tokenRefused, progress);
        if (!attempt) return attempt.error();
        switch (attempt->next) {
        case Attempt::Next::Done:
            attempt->outcome.tokenRefused = tokenRefused;
            attempt->outcome.attempts = i;
            return attempt->outcome;
        case Attempt::Next::WithoutToken:
            // The hub refuses an expired token even for a public repository: once more without it
            // (not counted as an attempt: it happens once).
            token.clear();
            tokenRefused = true;
            --i;
            break;
        case Attempt::Next::Resume:
        case Attempt::Next::StartOver:
            last = attempt->why;
            break;
        }
    }
    const std::string name = request.target.filename().string();
    if (attempts == 1) return makeError(last);
    return makeError("gave up on " + name + " after " + std::to_string(attempts) + " attempts; the last: " + last);
}

} // namespace hearsay::hub
