// whisper.cpp's ggml model file: magic 0x67676d6c, 11 int32 hyper-parameters, the mel
// filterbank, the vocabulary, then tensors until EOF (int32 n_dims, name length, ggml type,
// n_dims int32 ne with ne[0] innermost, the name, the data; no padding). Read in place through
// a memory map with every length checked; written in a stream, one tensor at a time.
#pragma once

#include "core/model/tensor.h"
#include "core/model/whisper_config.h"
#include "core/util/mapped_file.h"
#include "core/util/result.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hearsay {

constexpr uint32_t kGgmlMagic = 0x67676d6c;  // "ggml" as a little-endian uint32

// ggml type ids (ggml.h): 0 f32, 1 f16, 2 q4_0, 3 q4_1, 6 q5_0, 7 q5_1, 8 q8_0, 30 bf16.
std::optional<DType> dtypeFromGgmlType(int32_t type);
int32_t ggmlTypeOf(DType type);

struct GgmlFile {
    std::shared_ptr<const MappedFile> file;
    WhisperConfig config;                 // from the header, validated
    int32_t ftype = 0;                    // header ftype with the quantisation version removed
    int32_t nMelFilters = 0, nFft = 0;    // mel filterbank [n_mel][n_fft]
    std::vector<float> melFilters;
    std::vector<std::string> vocabulary;  // every stored entry (id -> bytes)
    std::vector<TensorView> tensors;      // in file order; shapes in PyTorch order (ne reversed)
};

// Reads and validates the layout. A file with no tensors at all (whisper.cpp's vocabulary-only
// test files) is accepted here; the model loader reports it.
Result<GgmlFile> openGgml(const std::filesystem::path& path);

// Streams a ggml file: header, mel filters and vocabulary on create(), then one tensor per call.
class GgmlWriter {
public:
    // `ftype` as whisper.cpp writes it (0 f32, 1 f16, or the quantised file types).
    static Result<std::unique_ptr<GgmlWriter>> create(const std::filesystem::path& path, const WhisperConfig& config,
                                                      int32_t ftype, const std::vector<float>& melFilters, int32_t nMel,
                                                      int32_t nFft, const std::vector<std::string>& vocabulary);
    ~GgmlWriter();
    GgmlWriter(const GgmlWriter&) = delete;
    GgmlWriter& operator=(const GgmlWriter&) = delete;

    // `shape` in PyTorch order; `bytes` must be dtypeBytes(dtype, elements).
    Result<void> writeTensor(const std::string& name, DType dtype, const std::vector<int64_t>& shape, const void* data,
                             size_t bytes);
    Result<void> finish();

private:
    GgmlWriter() = default;
    Result<void> put(const void* data, size_t bytes);
    std::FILE* m_file = nullptr;
    std::filesystem::path m_path;
};

} // namespace hearsay
