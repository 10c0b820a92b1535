#include "app/cli/shared_data.h"

#include "core/bench/subprocess.h"

#include <cstdlib>

namespace hearsay::cli {
namespace fs = std::filesystem;

Result<fs::path> sharedDataFile(const std::string& name, const std::string& option) {
    std::error_code ec;
    if (const char* dir = std::getenv("HEARSAY_SHARED_DATA_DIR"); dir && *dir) {
        const fs::path file = fs::path(dir) / name;
        if (fs::exists(file, ec)) return file;
        return makeError(file.string() + " does not exist (HEARSAY_SHARED_DATA_DIR names " + dir + "); give " + option);
    }
    fs::path dir = fs::path(currentExecutablePath()).parent_path();
    for (int up = 0; up < 6 && !dir.empty(); ++up, dir = dir.parent_path()) {
        if (fs::exists(dir / "shared/data" / name, ec)) return dir / "shared/data" / name;
        if (dir == dir.root_path()) break;
    }
    return makeError("no " + name + " found (no shared/data folder above this program and HEARSAY_SHARED_DATA_DIR is not "
                     "set); give " + option);
}

} // namespace hearsay::cli
