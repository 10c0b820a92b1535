// POSIX mmap of model files.
#include "core/util/mapped_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hearsay {

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return makeError("cannot open " + path.string() + ": " + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        std::string why = std::strerror(errno);
        ::close(fd);
        return makeError("cannot stat " + path.string() + ": " + why);
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return makeError(path.string() + " is not a regular file");
    }
    std::shared_ptr<MappedFile> file(new MappedFile);
    file->m_path = path;
    file->m_size = size_t(st.st_size);
    if (file->m_size > 0) {
        void* p = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            std::string why = std::strerror(errno);
            ::close(fd);
            return makeError("cannot map " + path.string() + ": " + why);
        }
        file->m_data = static_cast<const std::byte*>(p);
    }
    ::close(fd);
    return std::shared_ptr<const MappedFile>(std::move(file));
}

void MappedFile::releaseResidentPages() const {
    // Advice only: a failure changes nothing but the resident size.
    if (m_data && m_size) ::madvise(const_cast<std::byte*>(m_data), m_size, MADV_DONTNEED);
}

void MappedFile::releaseResidentPages(const std::byte* at, size_t bytes) const {
    if (!m_data || at < m_data || at >= m_data + m_size) return;
    releasePagesWithin(at, std::min(bytes, size_t(m_data + m_size - at)));
}

void releasePagesWithin(const void* at, size_t bytes) {
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    const auto start = reinterpret_cast<uintptr_t>(at);
    const uintptr_t first = (start + page - 1) / page * page, last = (start + bytes) / page * page;
    // Advice only, as above.
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
    if (m_data) ::munmap(const_cast<std::byte*>(m_data), m_size);
}

Result<std::string> readTextFile(const std::filesystem::path& path, size_t maxBytes) {
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (ec) return makeError("cannot read " + path.string() + ": " + ec.message());
    if (size > maxBytes) {
        return makeError(path.string() + " is too large (" + std::to_string(size) + " bytes)");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError("cannot open " + path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace hearsay
