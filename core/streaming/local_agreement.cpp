// LocalAgreement-2 over token hypotheses (see local_agreement.h).
#include "core/streaming/local_agreement.h"

#include <algorithm>

namespace hearsay {

LocalAgreement::LocalAgreement(int timestampBegin, std::function<bool(int)> isWordStart)
    : m_timestampBegin(timestampBegin), m_isWordStart(std::move(isWordStart)) {}

std::vector<int> LocalAgreement::text(const std::vector<int>& tokens) const {
    std::vector<int> out;
    for (int t : tokens)
        if (!isTimestamp(t)) out.push_back(t);
    return out;
}

size_t LocalAgreement::indexOfText(const std::vector<int>& tokens, size_t k) const {
    size_t seen = 0;
    for (size_t i = 0; i < tokens.size(); ++i) {
        if (isTimestamp(tokens[i])) continue;
        if (seen == k) return i;
        ++seen;
    }
    return tokens.size();
}

LocalAgreement::Update LocalAgreement::update(const std::vector<int>& hypothesis, bool allowCommit) {
    Update out;
    if (!m_havePrevious || !allowCommit) {
        m_tentative = hypothesis;
        m_havePrevious = true;
        out.tentative = m_tentative;
        return out;
    }
    const std::vector<int> previous = text(m_tentative), current = text(hypothesis);
    size_t agreed = 0;
    while (agreed < previous.size() && agreed < current.size() && previous[agreed] == current[agreed]) ++agreed;
    // Back to a word boundary both hypotheses share: a position whose next token (present in
    // both) starts a word. The end of either hypothesis is not a boundary: its last word may
    // still grow when more audio arrives.
    size_t cut = agreed;
    while (cut > 0) {
        const bool next = cut < current.size() && cut < previous.size();
        if (next && m_isWordStart(current[cut]) && m_isWordStart(previous[cut])) break;
        --cut;
    }
    const size_t at = cut == 0 ? 0 : indexOfText(hypothesis, cut);
    out.committed.assign(hypothesis.begin(), hypothesis.begin() + std::ptrdiff_t(at));
    m_committed.insert(m_committed.end(), out.committed.begin(), out.committed.end());
    m_tentative.assign(hypothesis.begin() + std::ptrdiff_t(at), hypothesis.end());
    out.tentative = m_tentative;
    return out;
}

std::vector<int> LocalAgreement::commitAll() {
    std::vector<int> all = std::move(m_tentative);
    m_tentative.clear();
    m_committed.insert(m_committed.end(), all.begin(), all.end());
    m_havePrevious = false;  // the next hypothesis starts after all of it
    return all;
}

namespace {

// The last "closing timestamp, opening timestamp" pair in tokens[0, limit): the index of the
// opening one and the closing time.
bool findBoundary(const std::vector<int>& tokens, size_t limit, int timestampBegin, size_t& index, int& steps) {
    for (size_t i = std::min(limit, tokens.size()); i-- > 1;) {
        if (tokens[i] >= timestampBegin && tokens[i - 1] >= timestampBegin) {
            index = i;
            steps = tokens[i - 1] - timestampBegin;
            return true;
        }
    }
    return false;
}

} // namespace

bool LocalAgreement::lastCommittedBoundary(Boundary& boundary) const {
    return findBoundary(m_committed, m_committed.size(), m_timestampBegin, boundary.index, boundary.steps);
}

bool LocalAgreement::lastBoundary(Boundary& boundary) const {
    std::vector<int> all = m_committed;
    all.insert(all.end(), m_tentative.begin(), m_tentative.end());
    return findBoundary(all, all.size(), m_timestampBegin, boundary.index, boundary.steps);
}

std::vector<int> LocalAgreement::commitThrough(size_t index) {
    if (index <= m_committed.size()) return {};
    const size_t count = std::min(index - m_committed.size(), m_tentative.size());
    std::vector<int> taken(m_tentative.begin(), m_tentative.begin() + std::ptrdiff_t(count));
    m_tentative.erase(m_tentative.begin(), m_tentative.begin() + std::ptrdiff_t(count));
    m_committed.insert(m_committed.end(), taken.begin(), taken.end());
    return taken;
}

void LocalAgreement::trimTo(const Boundary& boundary) {
    auto shift = [&](std::vector<int>& tokens) {
        for (int& t : tokens)
            if (isTimestamp(t)) t = std::max(m_timestampBegin, t - boundary.steps);
    };
    m_committed.erase(m_committed.begin(), m_committed.begin() + std::ptrdiff_t(std::min(boundary.index, m_committed.size())));
    shift(m_committed);
    shift(m_tentative);
}

void LocalAgreement::reset() {
    m_committed.clear();
    m_tentative.clear();
    m_havePrevious = false;
}

} // namespace hearsay
