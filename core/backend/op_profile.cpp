#include "core/backend/op_profile.h"

#include <algorithm>

namespace hearsay {

std::vector<OpTime> OpProfile::take() {
    std::map<std::string, OpTime> rows;
    {
        std::lock_guard lock(m_mutex);
        rows.swap(m_rows);
    }
    std::vector<OpTime> out;
    out.reserve(rows.size());
    for (auto& [label, row] : rows) out.push_back(std::move(row));
    std::sort(out.begin(), out.end(), [](const OpTime& a, const OpTime& b) { return a.ms > b.ms; });
    return out;
}

} // namespace hearsay
