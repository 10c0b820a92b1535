// libcurl, loaded when the first download starts rather than with the program: its TLS, Kerberos,
// LDAP and SSH libraries are about 4 MiB of resident memory and a start-up cost to every run of
// the application and the CLI, most of which never download anything (RESULTS.md, "CPU run 29").
#pragma once

#include "core/util/result.h"

#include <curl/curl.h>

namespace hearsay::hub {

// The few entry points the downloader calls, resolved from the shared library.
struct CurlLibrary {
    CURL* (*easyInit)() = nullptr;
    CURLcode (*easySetopt)(CURL*, CURLoption, ...) = nullptr;
    CURLcode (*easyPerform)(CURL*) = nullptr;
    CURLcode (*easyGetinfo)(CURL*, CURLINFO, ...) = nullptr;
    void (*easyCleanup)(CURL*) = nullptr;
    const char* (*easyStrerror)(CURLcode) = nullptr;
    curl_slist* (*slistAppend)(curl_slist*, const char*) = nullptr;
    void (*slistFreeAll)(curl_slist*) = nullptr;
};

// libcurl loaded and initialised (curl_global_init) on the first call, from any thread; later calls
// return the same. An error names the library when it cannot be loaded or lacks an entry point.
Result<const CurlLibrary*> curlLibrary();

} // namespace hearsay::hub
