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

Result<BytePairEncoder> BytePairEncoder::create(std::vector<std::string> tokens, const std::vector<int>& excluded) {
    BytePairEncoder bpe;
    bpe.m_tokens = std::move(tokens);
    std::vector<bool> skip(bpe.m_tokens.size(), false);
    for (int id : excluded) {
        if (id >= 0 && size_t(id) < skip.size()) skip[size_t(id)] = true;
    }
    bpe.m_ranks.reserve(bpe.m_tokens.size());
    bpe.m_byteRank.fill(-1);
    for (size_t id = 0; id < bpe.m_tokens.size(); ++id) {
        const std::string& t = bpe.m_tokens[id];
        // An empty token (multilingual id 50256 is one) can be decoded but never matched.
        if (skip[id] || t.empty()) continue;
        auto [it, inserted] = bpe.m_ranks.emplace(std::string_view(t), static_cast<int>(id));
        if (!inserted) {
            return makeError("tokens " + std::to_string(it->second) + " and " + std::to_string(id) +
                             " have the same bytes");
        }
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

int BytePairEncoder::rank(std::string_view bytes) const {
    if (bytes.size() == 1) return m_byteRank[static_cast<unsigned char>(bytes[0])];
    auto it = m_ranks.find(bytes);
    return it == m_ranks.end() ? -1 : it->second;
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
