// The catalog of official Whisper models Hearsay can download, in the three formats it loads:
// Hugging Face safetensors checkpoints (openai/whisper-*, distil-whisper/*), CTranslate2
// directories (Systran/faster-whisper-*, ...) and whisper.cpp ggml files (ggerganov/whisper.cpp,
// with the quantised q5/q8 files). One C++ table (catalog_entries.cpp) is the only source.
//
// Each entry is pinned to a commit of its repository, and its file sizes and SHA-256 digests are
// those of that commit where they are known (the LFS object ids Hugging Face publishes, and the
// hashes of the small files); where they are not (0 / empty), the downloader takes them from the
// hub's X-Linked-Size / X-Linked-Etag headers of that file, and small non-LFS files are checked by
// their Content-Length only. A hub that serves another file than the pin is reported, not retried.
// The few repositories whose commit is not known are at "main", marked (pinned() is false).
#pragma once

#include "core/model/whisper_model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay::hub {

struct CatalogFile {
    std::string path;        // inside the repository ("model.bin", "ggml-tiny.en.bin")
    uint64_t bytes = 0;      // 0: unknown
    std::string sha256;      // 64 hex digits; empty: unknown
    bool optional = false;   // absent from some repositories of the family: a 404 skips it
};

struct CatalogEntry {
    std::string name;        // "tiny.en", "large-v3-turbo", "tiny.en-q5_1" (ggml quantisations)
    std::string size;        // the Whisper size it is: "tiny.en", "large-v3-turbo", "distil-large-v3"
    ModelFormat format = ModelFormat::CTranslate2;
    std::string repo;        // "Systran/faster-whisper-tiny.en"
    // A commit (full, or a prefix the hub resolves). "main" where the commit is not known yet
    // (scripts/update_catalog.py fills it in), or as the user's explicit choice (--revision main).
    std::string revision = "main";
    std::vector<CatalogFile> files;
    std::string precision;   // as stored: "f32", "f16", "q5_0", "q5_1", "q8_0"
    bool englishOnly = false;
    int parametersMillions = 0;
    uint64_t diskBytes = 0;  // all files (exact when every file size is known, else an estimate)
    uint64_t memoryBytes = 0;  // expected resident memory while transcribing on the CPU (estimate)
    std::string speed;       // relative speed hint, from OpenAI's and distil-whisper's published benchmarks

    // "tiny.en-ct2", "tiny.en-hf", "ggml-tiny.en.bin": the name of the installed model in the
    // models directory (a directory for HF and CTranslate2, the file itself for ggml, named after
    // the entry since some repositories call it just "ggml-model.bin").
    std::string installName() const;
    std::string languages() const { return englishOnly ? "English" : "99 languages"; }
    bool hashesKnown() const;
    bool sizesKnown() const;  // every file's size recorded: diskBytes is exact
    // The revision is a full commit (40 hex digits), not a branch such as "main".
    bool pinned() const;
    // The same model at another revision: the pins are dropped (they hold for the catalog's
    // revision only), so the files are checked against the hub's X-Linked-* headers.
    CatalogEntry atRevision(const std::string& otherRevision) const;
};

// "hf", "ct2", "ggml" (the --format words) and back.
std::string_view formatWord(ModelFormat format);
std::optional<ModelFormat> formatFromWord(std::string_view word);

// The whole catalog, in display order (size, then format).
const std::vector<CatalogEntry>& catalog();

// The entry called `name` in `format`, or, without a format, the first of CTranslate2, ggml,
// Hugging Face that has it (ggml quantisations exist only as ggml). Null when none.
const CatalogEntry* findCatalogEntry(std::string_view name, std::optional<ModelFormat> format = std::nullopt);

// The hub's URL of a file: {base}/{repo}/resolve/{revision}/{file}, base without its trailing '/'.
std::string hubFileUrl(std::string_view base, const CatalogEntry& entry, const CatalogFile& file);

constexpr std::string_view kDefaultHubUrl = "https://huggingface.co";
// The hub base URL: `option` (--hub-url) when not empty, else $HEARSAY_HUB_URL, else $HF_ENDPOINT
// (the variable huggingface_hub reads, so a mirror set for it serves Hearsay too), else huggingface.co.
std::string hubBaseUrl(std::string_view option = {});
// Where hubBaseUrl(option) comes from: "--hub-url", "HEARSAY_HUB_URL", "HF_ENDPOINT" or "default".
std::string hubBaseUrlSource(std::string_view option = {});

} // namespace hearsay::hub
