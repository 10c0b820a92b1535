// The project's shared data (the speech clips and whisper.cpp's ggml vocabularies) that some
// commands default to, found at run time, never compiled in: $HEARSAY_SHARED_DATA_DIR when set;
// else a `shared/data` folder in the nearest folder above the executable that has one (a build
// tree inside a checkout that sits beside the shared folder). Installed programs have none: there
// the options that read these files are given them.
#pragma once

#include "core/util/result.h"

#include <filesystem>
#include <string>

namespace hearsay::cli {

// The file `name` of the shared data; the error names `option`, which gives the file instead.
Result<std::filesystem::path> sharedDataFile(const std::string& name, const std::string& option);

} // namespace hearsay::cli
