// Where models live and who we are on the hub: the models directory (downloads), the Hugging
// Face cache and token, and the folders other Whisper programs keep their models in.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace hearsay::hub {

// `option` when not empty, else $HEARSAY_MODELS_DIR, else $XDG_DATA_HOME/hearsay/models, else
// ~/.local/share/hearsay/models. Not created here.
std::filesystem::path modelsDirectory(const std::filesystem::path& option = {});

// The Hugging Face hub cache: $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub,
// else ~/.cache/huggingface/hub.
std::filesystem::path huggingFaceCacheDirectory();

// The access token for gated repositories: $HF_TOKEN, else the token file ($HF_TOKEN_PATH, else
// $HF_HOME/token, else ~/.cache/huggingface/token), trimmed; empty when there is none.
std::string huggingFaceToken();

// Folders whisper.cpp, its front ends and Buzz usually keep ggml files in (those that exist or not).
std::vector<std::filesystem::path> usualModelFolders();

} // namespace hearsay::hub
