#include "core/hub/hub_paths.h"
#include "core/util/strings.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace hearsay::hub {
namespace fs = std::filesystem;
namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

fs::path home() {
    const std::string h = env("HOME");
    return h.empty() ? fs::path("/") : fs::path(h);
}

fs::path cacheHome() {
    const std::string x = env("XDG_CACHE_HOME");
    return x.empty() ? home() / ".cache" : fs::path(x);
}

} // namespace

fs::path modelsDirectory(const fs::path& option) {
    if (!option.empty()) return option;
    if (auto d = env("HEARSAY_MODELS_DIR"); !d.empty()) return d;
    if (auto x = env("XDG_DATA_HOME"); !x.empty()) return fs::path(x) / "hearsay" / "models";
    return home() / ".local" / "share" / "hearsay" / "models";
}

fs::path huggingFaceCacheDirectory() {
    if (auto c = env("HF_HUB_CACHE"); !c.empty()) return c;
    if (auto h = env("HF_HOME"); !h.empty()) return fs::path(h) / "hub";
    return cacheHome() / "huggingface" / "hub";
}

std::string huggingFaceToken() {
    if (auto t = stripWhitespace(env("HF_TOKEN")); !t.empty()) return t;
    fs::path file;
    if (auto p = env("HF_TOKEN_PATH"); !p.empty()) file = p;
    else if (auto h = env("HF_HOME"); !h.empty()) file = fs::path(h) / "token";
    else file = cacheHome() / "huggingface" / "token";
    std::ifstream in(file);
    if (!in) return {};
    std::stringstream text;
    text << in.rdbuf();
    return stripWhitespace(text.str());
}

std::vector<fs::path> usualModelFolders() {
    const fs::path h = home(), cache = cacheHome();
    return {
        cache / "whisper.cpp",                        // whisper.cpp front ends
        h / "whisper.cpp" / "models",                 // a whisper.cpp checkout's download script
        h / ".local" / "share" / "whisper.cpp",
        cache / "Buzz" / "models",                    // Buzz (ggml files; its other formats use the HF cache)
        h / ".local" / "share" / "pywhispercpp" / "models",
        cache / "hearsay" / "test-models",            // scripts/fetch_real_models.sh
    };
}

} // namespace hearsay::hub
