// Loads libcurl with dlopen and resolves the downloader's entry points once.
#include "core/hub/curl_library.h"

#include <dlfcn.h>
#include <link.h>

#include <mutex>
#include <string>
#include <type_traits>

namespace hearsay::hub {
namespace {

// The soname of libcurl 7.16 and later (Debian's libcurl4 and libcurl3-gnutls packages alike);
// the unversioned name as a fallback for a build whose library is only there as its -dev link.
constexpr const char* kNames[] = {"libcurl.so.4", "libcurl.so"};
// What every message of a libcurl that cannot serve says the user needs.
constexpr const char* kNeeded = "model downloads need libcurl (Debian: libcurl4)";

struct Loaded {
    CurlLibrary library;
    std::string error;  // empty when loaded
};

Loaded load() {
    Loaded out;
    void* handle = nullptr;
    std::string tried;
    for (const char* name : kNames) {
        handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (handle) break;
        const char* why = dlerror();
        tried += std::string(tried.empty() ? "" : "; ") + (why ? why : name);
    }
    if (!handle) {
        out.error = std::string(kNeeded) + ", which cannot be loaded: " + tried;
        return out;
    }
    // Kept loaded for the life of the process (never dlclose'd: curl_global_cleanup is not called).
    const auto resolve = [&](auto& slot, const char* symbol) {
        slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle, symbol));
        if (slot || !out.error.empty()) return;
        link_map* map = nullptr;  // which file the loader found, for the message
        const std::string file = dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name
                                     ? map->l_name
                                     : "the libcurl loaded";
        out.error = file + " is not a libcurl the downloader can use (it lacks " + symbol + "); " + kNeeded;
    };
    CurlLibrary& c = out.library;
    CURLcode (*globalInit)(long) = nullptr;
    resolve(globalInit, "curl_global_init");
    resolve(c.easyInit, "curl_easy_init");
    resolve(c.easySetopt, "curl_easy_setopt");
    resolve(c.easyPerform, "curl_easy_perform");
    resolve(c.easyGetinfo, "curl_easy_getinfo");
    resolve(c.easyCleanup, "curl_easy_cleanup");
    resolve(c.easyStrerror, "curl_easy_strerror");
    resolve(c.slistAppend, "curl_slist_append");
    resolve(c.slistFreeAll, "curl_slist_free_all");
    if (!out.error.empty()) return out;
    if (const CURLcode code = globalInit(CURL_GLOBAL_DEFAULT); code != CURLE_OK)
        out.error = std::string("libcurl failed to initialise: ") + c.easyStrerror(code);
    return out;
}

} // namespace

Result<const CurlLibrary*> curlLibrary() {
    static std::once_flag once;
    static Loaded loaded;
    std::call_once(once, [] { loaded = load(); });
    if (!loaded.error.empty()) return makeError(loaded.error);
    return &loaded.library;
}

} // namespace hearsay::hub
