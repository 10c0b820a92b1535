#include "core/backend/huge_pages.h"

#include "core/util/mapped_file.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <sys/mman.h>

namespace hearsay {

std::unique_ptr<HugePageMapping> HugePageMapping::map(size_t bytes) {
    if (bytes == 0 || bytes > SIZE_MAX / 2 - 2 * kPageBytes) return nullptr;
    // Whole small pages: a last 2 MiB that the mapping only partly covers comes in 4 KiB pages,
    // so nothing beyond `bytes` becomes resident.
    const size_t size = (bytes + kSmallPageBytes - 1) / kSmallPageBytes * kSmallPageBytes;
    // Mapped with 2 MiB to spare, then trimmed to start on a 2 MiB boundary: the kernel backs an
    // aligned 2 MiB range with one huge page, a range across boundaries with small ones.
    void* raw = ::mmap(nullptr, size + kPageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kPageBytes - 1) / kPageBytes * kPageBytes;
    if (aligned > start) ::munmap(raw, aligned - start);
    if (const size_t tail = start + size + kPageBytes - (aligned + size); tail > 0) {
        ::munmap(reinterpret_cast<void*>(aligned + size), tail);
    }
    auto* data = reinterpret_cast<std::byte*>(aligned);
    // Advice only: refused (a kernel without transparent huge pages), the mapping keeps 4 KiB pages.
    ::madvise(data, size, MADV_HUGEPAGE);
    return std::unique_ptr<HugePageMapping>(new HugePageMapping(data, size));
}

bool HugePageMapping::systemGrants() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string setting;
    std::getline(in, setting);
    return setting.find("[always]") != std::string::npos || setting.find("[madvise]") != std::string::npos;
}

HugePageMapping::~HugePageMapping() { ::munmap(m_data, m_size); }

void HugePageMapping::discard(std::byte* at, size_t bytes) const { releasePagesWithin(at, bytes); }

void HugePageMapping::shrink(size_t bytes) {
    const size_t keep = (bytes + kSmallPageBytes - 1) / kSmallPageBytes * kSmallPageBytes;
    if (keep >= m_size) return;
    if (::munmap(m_data + keep, m_size - keep) == 0) m_size = keep;
}

HugePageArena::Block HugePageArena::allocate(size_t bytes) {
    constexpr size_t kAlign = 64;
    if (bytes > SIZE_MAX / 2) return {};
    const size_t size = (bytes + kAlign - 1) / kAlign * kAlign;
    std::lock_guard lock(m_mutex);
    std::shared_ptr<HugePageMapping> chunk = m_chunk.lock();
    if (!chunk || chunk->size() - m_used < size) {
        if (chunk) chunk->shrink(m_used);
        chunk = HugePageMapping::map(std::max(size, m_chunkBytes));
        if (!chunk) return {};
        m_chunk = chunk;
        m_used = 0;
    }
    Block block{chunk, chunk->data() + m_used};
    m_used += size;
    return block;
}

} // namespace hearsay
