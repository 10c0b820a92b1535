// A read-only memory map of a whole file: model weights are read from it, by a backend that
// copies them once (into its own memory, a GPU's or the CPU backend's huge pages). Not copyable;
// unmaps on destruction.
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>

namespace hearsay {

class MappedFile {
public:
    static Result<std::shared_ptr<const MappedFile>> open(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::byte* data() const { return m_data; }
    size_t size() const { return m_size; }
    std::span<const std::byte> bytes() const { return {m_data, m_size}; }
    const std::filesystem::path& path() const { return m_path; }
    // Lets the system take back the pages read so far (they count as this process's resident
    // memory until then): the contents stay, a page read again comes back from the file (the
    // page cache). For after a scan of the whole file or a copy out of it.
    void releaseResidentPages() const;
    // The same for the pages that lie wholly inside [at, at + bytes), clipped to the map: for
    // after a copy of one tensor, so that a model's copies do not hold the file's pages as well.
    void releaseResidentPages(const std::byte* at, size_t bytes) const;

private:
    MappedFile() = default;
    const std::byte* m_data = nullptr;
    size_t m_size = 0;
    std::filesystem::path m_path;
};

// Gives back to the system the pages that lie wholly inside [at, at + bytes) of a mapping
// (madvise(MADV_DONTNEED), advice only): a page of a file's map reads the file again if touched,
// a page of anonymous memory reads zeros. What shares a page with the range is left alone.
void releasePagesWithin(const void* at, size_t bytes);

// Reads a whole (small) file into a string; for configs and text assets.
Result<std::string> readTextFile(const std::filesystem::path& path, size_t maxBytes = size_t(256) << 20);

} // namespace hearsay
