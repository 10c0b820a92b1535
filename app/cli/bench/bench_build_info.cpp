// The build this hearsay-cli came from, as `bench` reports it: the commit (read at configure time)
// and the build type, defined for this file alone by app/CMakeLists.txt.
#include "app/cli/bench/bench_cli.h"

#ifndef HEARSAY_GIT_COMMIT
#define HEARSAY_GIT_COMMIT "unknown"
#endif
#ifndef HEARSAY_BUILD_TYPE
#define HEARSAY_BUILD_TYPE "unknown"
#endif

namespace hearsay::cli::bench {

const char* buildCommit() { return HEARSAY_GIT_COMMIT; }
const char* buildType() { return HEARSAY_BUILD_TYPE; }

} // namespace hearsay::cli::bench
