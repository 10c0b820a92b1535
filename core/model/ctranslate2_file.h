// CTranslate2's model.bin (the file faster-whisper, WhisperX and Buzz load): a flat list of named
// variables and aliases. Read in place through a memory map with every length checked; written in
// a stream for the converter's tests. Layout (little-endian, no padding, ctranslate2 4.x writes
// binary version 6; versions 1-6 share it with these differences):
//   uint32 binary_version
//   [v >= 2] string spec_name ("WhisperSpec"), uint32 spec_revision
//   uint32 n_variables, then per variable:
//     string name ("encoder/conv1/weight"), uint8 rank, uint32 dims[rank],
//     [v >= 4] uint8 dtype (0 f32, 1 i8, 2 i16, 3 i32, 4 f16, 5 bf16), uint32 n_bytes
//     [v <  4] uint8 item_size (4 f32, 2 i16, 1 i8), uint32 n_elements
//     the data
//   [v >= 3] uint32 n_aliases, then pairs (string alias, string variable name)
// where a string is uint16 length (the terminating NUL included), the bytes and a NUL.
#pragma once

#include "core/util/mapped_file.h"
#include "core/util/result.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hearsay {

constexpr uint32_t kCTranslate2MaxBinaryVersion = 6;

enum class Ct2Type : uint8_t { F32 = 0, I8 = 1, I16 = 2, I32 = 3, F16 = 4, BF16 = 5 };
std::string_view ct2TypeName(Ct2Type type);
size_t ct2TypeBytes(Ct2Type type);

struct Ct2Variable {
    std::string name;
    Ct2Type type = Ct2Type::F32;
    std::vector<int64_t> shape;     // as stored, outermost first; empty for a scalar
    const std::byte* data = nullptr; // inside the map, not necessarily aligned
    size_t bytes = 0;

    int64_t elements() const;
    // A scalar's value as an integer (i8, i16, i32) or nothing for other types or ranks.
    std::optional<int64_t> integerScalar() const;
};

struct CTranslate2File {
    std::shared_ptr<const MappedFile> file;
    uint32_t binaryVersion = 0;
    std::string spec;                 // "WhisperSpec"; empty for version 1
    uint32_t specRevision = 1;
    std::map<std::string, Ct2Variable> variables;
    std::map<std::string, std::string> aliases;  // alias -> variable name (which exists)

    // The variable of this name, following an alias; null when absent.
    const Ct2Variable* find(const std::string& name) const;
};

// Reads and validates the layout of a model.bin: every length inside the file, known types,
// payload sizes equal to shape × type size, names unique, aliases naming variables, nothing
// after the aliases. Errors name the file, the byte offset and the problem.
Result<CTranslate2File> openCTranslate2(const std::filesystem::path& path);

// Streams a model.bin of the current binary version: the header on create(), then one variable
// per call (in any order), then the aliases on finish().
class Ct2Writer {
public:
    static Result<std::unique_ptr<Ct2Writer>> create(const std::filesystem::path& path, const std::string& spec,
                                                     uint32_t specRevision, uint32_t variableCount);
    ~Ct2Writer();
    Ct2Writer(const Ct2Writer&) = delete;
    Ct2Writer& operator=(const Ct2Writer&) = delete;

    // `bytes` must be the elements of `shape` × ct2TypeBytes(type).
    Result<void> write(const std::string& name, Ct2Type type, const std::vector<int64_t>& shape, const void* data,
                       size_t bytes);
    Result<void> finish(const std::vector<std::pair<std::string, std::string>>& aliases);

private:
    Ct2Writer() = default;
    Result<void> put(const void* data, size_t bytes);
    Result<void> putString(const std::string& s);
    std::FILE* m_file = nullptr;
    std::filesystem::path m_path;
    uint32_t m_expected = 0;
    uint32_t m_written = 0;
};

} // namespace hearsay
