// The safetensors format (Hugging Face): u64 header length, a JSON header mapping tensor names
// to dtype, shape and [begin, end) data offsets, then the data. Read in place through a memory
// map with every offset checked; written in a stream, one tensor at a time.
#pragma once

#include "core/model/tensor.h"
#include "core/util/mapped_file.h"
#include "core/util/result.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace hearsay {

struct SafetensorsFile {
    std::shared_ptr<const MappedFile> file;            // null when read from caller-owned bytes
    std::map<std::string, TensorView> tensors;         // views into `file`
    std::map<std::string, std::string> metadata;       // "__metadata__" (string values)
};

// Opens and validates a .safetensors file: header length within the file, well-formed JSON,
// known dtypes (F32, F16, BF16), sane shapes, offsets inside the data and not overlapping.
Result<SafetensorsFile> openSafetensors(const std::filesystem::path& path);
// The same checks on bytes already in memory (weights embedded in the binary); the views point
// into `bytes`, which must outlive them. `where` names the source in error messages.
Result<SafetensorsFile> readSafetensors(std::span<const std::byte> bytes, const std::string& where);

// Streams a .safetensors file: the header is written up front from the declared tensors, then
// write() must be called once per tensor in the declared order.
class SafetensorsWriter {
public:
    struct Entry {
        std::string name;
        DType dtype = DType::F32;         // F32, F16 or BF16
        std::vector<int64_t> shape;
    };
    static Result<std::unique_ptr<SafetensorsWriter>> create(const std::filesystem::path& path,
                                                             const std::vector<Entry>& entries,
                                                             const std::map<std::string, std::string>& metadata);
    ~SafetensorsWriter();
    SafetensorsWriter(const SafetensorsWriter&) = delete;
    SafetensorsWriter& operator=(const SafetensorsWriter&) = delete;

    // The next tensor's bytes (exactly dtypeBytes(dtype, elements)).
    Result<void> write(const std::string& name, const void* data, size_t bytes);
    // Flushes and closes; an error if tensors are missing or the disk failed.
    Result<void> finish();

private:
    SafetensorsWriter() = default;
    std::FILE* m_file = nullptr;
    std::filesystem::path m_path;
    std::vector<Entry> m_entries;
    size_t m_next = 0;
};

} // namespace hearsay
