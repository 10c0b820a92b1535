// Finds the Whisper models already on the disk, in place (nothing is copied): the Hugging Face
// hub cache (models--ORG--NAME/snapshots/REV/, files linked into blobs/), the folders whisper.cpp
// and Buzz keep ggml files in, Hearsay's models directory and folders the user adds. Every
// candidate is checked cheaply (model_probe.h); a broken link, a partial blob or a file that does
// not read as a model is reported as a problem and left out of the list.
#pragma once

#include "core/hub/model_probe.h"

#include <filesystem>
#include <string>
#include <vector>

namespace hearsay::hub {

struct FoundModel {
    ProbedModel model;
    std::string source;  // "Hugging Face cache", "whisper.cpp/Buzz folder", "models directory", "folder"
    std::string repo;    // "Systran/faster-whisper-tiny.en" for a hub cache snapshot, else empty
};

struct ScanProblem {
    std::filesystem::path path;
    std::string message;
};

struct ScanResult {
    std::vector<FoundModel> models;
    std::vector<ScanProblem> problems;
};

struct ScanLocations {
    std::vector<std::filesystem::path> huggingFaceCaches;  // hub cache roots
    std::vector<std::filesystem::path> modelFolders;       // plain folders: models directly inside (one level)
    std::filesystem::path modelsDirectory;                 // Hearsay's own downloads
    std::vector<std::filesystem::path> userFolders;
};

// The usual places: huggingFaceCacheDirectory(), usualModelFolders(), modelsDirectory(option),
// `userFolders` and the folders of $HEARSAY_MODEL_DIRS (':'-separated).
ScanLocations defaultScanLocations(const std::filesystem::path& modelsDirectoryOption = {},
                                   std::vector<std::filesystem::path> userFolders = {});

ScanResult scanForModels(const ScanLocations& locations);

// The model a first start opens: `preferred` (a catalog name, tiny.en by default) installed in the
// models directory (CTranslate2, ggml, then Hugging Face), else a model of that size found by the
// scan; empty when there is none.
std::filesystem::path firstStartModel(const ScanLocations& locations, const std::string& preferred = "tiny.en");

} // namespace hearsay::hub
