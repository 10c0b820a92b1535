// Host memory in 2 MiB pages, for what a CPU decode step streams through once per token: the
// weights and the half cross cache. Read with 4 KiB pages, each 4 KiB costs a page walk, and in a
// virtual machine the walk goes through the host's tables as well: on an Intel Xeon VM two threads
// read 512 MiB to 2 GiB at 23 to 24 GB/s in 4 KiB pages and at 28 to 32 in 2 MiB ones, and
// medium's decode went from 41.9 to 38.6 ms a token once its weights and cross cache sat in them
// (RESULTS.md, "CPU run 19").
//
// The pages are transparent huge pages, asked for with madvise(MADV_HUGEPAGE): where the system
// has them switched off, or has no 2 MiB page free, the same memory comes in 4 KiB pages and
// works the same.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>

namespace hearsay {

// An anonymous private mapping of `size()` zeroed bytes (`bytes` rounded up to 4 KiB) starting on
// a 2 MiB boundary, advised for huge pages. Pages are given memory when first touched: a 2 MiB
// page as a whole, the 4 KiB pages of a last part shorter than 2 MiB one by one.
class HugePageMapping {
public:
    static constexpr size_t kPageBytes = size_t(2) << 20;
    static constexpr size_t kSmallPageBytes = 4096;
    // nullptr when the system refuses the mapping (address space or memory exhausted).
    static std::unique_ptr<HugePageMapping> map(size_t bytes);
    // Whether the system hands out transparent huge pages to a mapping that asks (its setting is
    // "always" or "madvise"); a mapping can still get small pages where no 2 MiB are free.
    static bool systemGrants();
    ~HugePageMapping();
    HugePageMapping(const HugePageMapping&) = delete;
    HugePageMapping& operator=(const HugePageMapping&) = delete;

    std::byte* data() const { return m_data; }
    size_t size() const { return m_size; }
    // Gives back to the system the pages that lie wholly inside [at, at + bytes), a range of this
    // mapping that nothing reads any more: they read as zeros if touched again.
    void discard(std::byte* at, size_t bytes) const;
    // Unmaps all but the first `bytes` (rounded up to 4 KiB); nothing may use the rest.
    void shrink(size_t bytes);

private:
    HugePageMapping(std::byte* data, size_t size) : m_data(data), m_size(size) {}
    std::byte* m_data;
    size_t m_size;
};

// Buffers packed one after another (64-byte aligned) into mappings of at least the arena's chunk
// size: a model's weights, whose small matrices (tiny's are 288 KiB) then share 2 MiB pages instead
// of each taking its own, and the cross cache's keys and values, which then lie in whole 2 MiB pages
// but for the end of a chunk (each layer's in its own mapping left a third of medium's cache, the
// last 0.9 MiB of every 2.9 MiB buffer, in 4 KiB pages). A chunk that the next buffer does not fit
// is cut back to the buffers in it (its unused end unmapped), so only the chunk still open can hold
// memory no buffer uses: at most the rest of one 2 MiB page. A chunk is unmapped when the last
// buffer in it is freed, and a freed buffer's own pages are given back at once (it discards them),
// so models and caches made one after another do not keep each other's memory. Space is never
// handed out twice, so a new buffer reads as zeros. Thread-safe.
class HugePageArena {
public:
    static constexpr size_t kChunkBytes = size_t(8) << 20;
    explicit HugePageArena(size_t chunkBytes = kChunkBytes) : m_chunkBytes(chunkBytes) {}
    struct Block {
        std::shared_ptr<const HugePageMapping> mapping;  // keeps the bytes alive
        std::byte* data = nullptr;                       // nullptr: out of memory
    };
    Block allocate(size_t bytes);

private:
    const size_t m_chunkBytes;
    std::mutex m_mutex;
    std::weak_ptr<HugePageMapping> m_chunk;  // the mapping new buffers go into, while any buffer holds it
    size_t m_used = 0;                       // bytes of it given out
};

} // namespace hearsay
