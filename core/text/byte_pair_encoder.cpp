// BPE merging (see byte_pair_encoder.h). tiktoken rescans all pairs after each merge, O(n²)
// per piece; this keeps the pairs in a min-heap keyed by (rank, position) instead, which makes
// the same choices (lowest rank, then leftmost) in O(n log n), so a long run without spaces in
// an untrusted prompt cannot stall the decoder thread.
#include "core/text/byte_pair_encoder.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <queue>
#include <utility>

namespace hearsay {

namespace {

// FNV-1a over the bytes: tokens are short, and the table only needs them spread over its slots.
uint64_t hashBytes(std::string_view bytes) {
    uint64_t h = 14695981039346656037ull;
    for (const char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

} // namespace

Result<BytePairEncoder> BytePairEncoder::create(std::shared_ptr<const TokenTable> tokens, size_t count,
                                                const std::vector<int>& excluded) {
    if (!tokens || count > tokens->size()) return makeError("the vocabulary has fewer tokens than the encoder needs");
    BytePairEncoder bpe;
    bpe.m_tokens = std::move(tokens);
    bpe.m_count = count;
    const TokenTable& table = *bpe.m_tokens;
    std::vector<bool> skip(count, false);
    for (int id : excluded) {
        if (id >= 0 && size_t(id) < skip.size()) skip[size_t(id)] = true;
    }
    size_t slots = 16;
    while (slots < 2 * count) slots *= 2;
    bpe.m_slots.assign(slots, -1);
    bpe.m_byteRank.fill(-1);
    for (size_t id = 0; id < count; ++id) {
        const std::string_view t = table[id];
        // An empty token (multilingual id 50256 is one) can be decoded but never matched.
        if (skip[id] || t.empty()) continue;
        int32_t& slot = bpe.m_slots[bpe.slotOf(t)];
        if (slot >= 0) {
            return makeError("tokens " + std::to_string(slot) + " and " + std::to_string(id) + " have the same bytes");
        }
        slot = static_cast<int32_t>(id);
        if (t.size() == 1) bpe.m_byteRank[static_cast<unsigned char>(t[0])] = static_cast<int>(id);
    }
    for (int b = 0; b < 256; ++b) {
        if (bpe.m_byteRank[size_t(b)] < 0) {
            return makeError("no token for the single byte " + std::to_string(b) +
                             " (a byte-level vocabulary has all 256)");
        }
    }
    return bpe;
}

size_t BytePairEncoder::slotOf(std::string_view bytes) const {
    const size_t mask = m_slots.size() - 1;
    for (size_t i = hashBytes(bytes) & mask;; i = (i + 1) & mask) {
        const int32_t id = m_slots[i];
        if (id < 0 || (*m_tokens)[size_t(id)] == bytes) return i;
    }
}

int BytePairEncoder::rank(std::string_view bytes) const {
    if (bytes.size() == 1) return m_byteRank[static_cast<unsigned char>(bytes[0])];
    if (bytes.empty()) return -1;
    return m_slots[slotOf(bytes)];
}

void BytePairEncoder::encodePiece(std::string_view piece, std::vector<int>& out) const {
    if (piece.empty()) return;
    if (const int id = rank(piece); id >= 0) {
        out.push_back(id);
        return;
    }
    merge(piece, out);
}

void BytePairEncoder::merge(std::string_view piece, std::vector<int>& out) const {
    // Parts are identified by their first byte; next/prev link the live parts in order.
    // pairRank[i]: rank of part i joined with the part after it (INT_MAX when not a token).
    const int n = static_cast<int>(piece.size());
    struct Scratch {
        std::vector<int> next, prev, pairRank;
        std::vector<std::pair<int, int>> heap;  // (rank, part), min-heap
    };
    thread_local Scratch s;
    s.next.resize(size_t(n));
    s.prev.resize(size_t(n));
    s.pairRank.resize(size_t(n));
    s.heap.clear();

    const auto partEnd = [&](int i) { return s.next[size_t(i)] < 0 ? n : s.next[size_t(i)]; };
    const auto computePairRank = [&](int i) {
        const int j = s.next[size_t(i)];
        if (j < 0) return INT_MAX;
        const int r = rank(piece.substr(size_t(i), size_t(partEnd(j) - i)));
        return r < 0 ? INT_MAX : r;
    };
    const auto push = [&](int i) {
        if (s.pairRank[size_t(i)] == INT_MAX) return;
        s.heap.emplace_back(s.pairRank[size_t(i)], i);
        std::push_heap(s.heap.begin(), s.heap.end(), std::greater<>());
    };

    for (int i = 0; i < n; ++i) {
        s.next[size_t(i)] = i + 1 < n ? i + 1 : -1;
        s.prev[size_t(i)] = i - 1;
    }
    for (int i = 0; i < n; ++i) {
        s.pairRank[size_t(i)] = computePairRank(i);
        push(i);
    }

    while (!s.heap.empty()) {
        std::pop_heap(s.heap.begin(), s.heap.end(), std::greater<>());
        const auto [r, i] = s.heap.back();
        s.heap.pop_back();
        if (s.pairRank[size_t(i)] != r) continue;  // stale: the part changed or was absorbed
        const int j = s.next[size_t(i)];
        const int k = s.next[size_t(j)];
        s.next[size_t(i)] = k;
        if (k >= 0) s.prev[size_t(k)] = i;
        s.pairRank[size_t(j)] = INT_MAX;  // j is absorbed into i
        s.pairRank[size_t(i)] = computePairRank(i);
        push(i);
        if (const int p = s.prev[size_t(i)]; p >= 0) {
            s.pairRank[size_t(p)] = computePairRank(p);
            push(p);
        }
    }

    for (int i = 0; i >= 0; i = s.next[size_t(i)]) {
        out.push_back(rank(piece.substr(size_t(i), size_t(partEnd(i) - i))));
    }
}

} // namespace hearsay
