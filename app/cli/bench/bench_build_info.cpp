// The build this hearsay-cli came from, as `bench` reports it: the commit (hearsay_commit.h,
// written at every build) and the build type, defined for this file alone by app/CMakeLists.txt.
#include "app/cli/bench/bench_cli.h"

#include "core/bench/machine_info.h"
#include "hearsay_commit.h"  // generated at every build (app/build_commit.cmake)

#ifndef HEARSAY_BUILD_TYPE
#define HEARSAY_BUILD_TYPE "unknown"
#endif

namespace hearsay::cli::bench {

const char* buildCommit() { return HEARSAY_GIT_COMMIT; }
const char* buildType() { return HEARSAY_BUILD_TYPE; }

BuildInfo thisBuild() {
    BuildInfo build;
    build.buildType = buildType();
    build.compiler = compilerDescription();
    build.commit = buildCommit();
#ifdef HEARSAY_HAVE_CUDA
    build.cuda = true;
#endif
    return build;
}

} // namespace hearsay::cli::bench
