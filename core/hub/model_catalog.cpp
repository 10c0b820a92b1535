#include "core/hub/model_catalog.h"

#include <cctype>
#include <cstdlib>

namespace hearsay::hub {

std::string CatalogEntry::installName() const {
    if (format == ModelFormat::Ggml) return "ggml-" + name + ".bin";
    return name + "-" + std::string(formatWord(format));
}

CatalogEntry CatalogEntry::atRevision(const std::string& otherRevision) const {
    if (otherRevision == revision) return *this;
    CatalogEntry e = *this;
    e.revision = otherRevision;
    for (auto& f : e.files) {
        f.bytes = 0;
        f.sha256.clear();
    }
    return e;
}

bool CatalogEntry::hashesKnown() const {
    for (const auto& f : files)
        if (f.sha256.empty()) return false;
    return !files.empty();
}

bool CatalogEntry::sizesKnown() const {
    for (const auto& f : files)
        if (f.bytes == 0) return false;
    return !files.empty();
}

bool CatalogEntry::pinned() const {
    if (revision.size() != 40) return false;
    for (char c : revision)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

std::string_view formatWord(ModelFormat format) {
    switch (format) {
    case ModelFormat::HuggingFace: return "hf";
    case ModelFormat::CTranslate2: return "ct2";
    case ModelFormat::Ggml: return "ggml";
    }
    return "?";
}

std::optional<ModelFormat> formatFromWord(std::string_view word) {
    if (word == "hf") return ModelFormat::HuggingFace;
    if (word == "ct2") return ModelFormat::CTranslate2;
    if (word == "ggml") return ModelFormat::Ggml;
    return std::nullopt;
}

const CatalogEntry* findCatalogEntry(std::string_view name, std::optional<ModelFormat> format) {
    const ModelFormat order[] = {ModelFormat::CTranslate2, ModelFormat::Ggml, ModelFormat::HuggingFace};
    for (ModelFormat f : order) {
        if (format && *format != f) continue;
        for (const auto& e : catalog())
            if (e.format == f && e.name == name) return &e;
    }
    return nullptr;
}

std::string hubFileUrl(std::string_view base, const CatalogEntry& entry, const CatalogFile& file) {
    std::string b(base);
    while (!b.empty() && b.back() == '/') b.pop_back();
    return b + "/" + entry.repo + "/resolve/" + entry.revision + "/" + file.path;
}

namespace {

const char* environment(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

} // namespace

std::string hubBaseUrl(std::string_view option) {
    if (!option.empty()) return std::string(option);
    if (const char* env = environment("HEARSAY_HUB_URL")) return env;
    if (const char* env = environment("HF_ENDPOINT")) return env;
    return std::string(kDefaultHubUrl);
}

std::string hubBaseUrlSource(std::string_view option) {
    if (!option.empty()) return "--hub-url";
    if (environment("HEARSAY_HUB_URL")) return "HEARSAY_HUB_URL";
    if (environment("HF_ENDPOINT")) return "HF_ENDPOINT";
    return "default";
}

} // namespace hearsay::hub
