// parseJson: nlohmann's parser driving a document builder of our own (its public SAX interface),
// which refuses a container nested deeper than the limit as it opens, and keeps the byte
// position nlohmann reports with every error.
#include "core/util/json_text.h"

#include <vector>

namespace hearsay {
namespace {

using nlohmann::json;

class DocumentBuilder final : public json::json_sax_t {
public:
    DocumentBuilder(json& root, int maxDepth) : m_root(root), m_maxDepth(maxDepth) {}

    bool null() override { return add(nullptr) != nullptr; }
    bool boolean(bool value) override { return add(value) != nullptr; }
    bool number_integer(number_integer_t value) override { return add(value) != nullptr; }
    bool number_unsigned(number_unsigned_t value) override { return add(value) != nullptr; }
    bool number_float(number_float_t value, const string_t&) override { return add(value) != nullptr; }
    bool string(string_t& value) override { return add(std::move(value)) != nullptr; }
    bool binary(binary_t& value) override { return add(json::binary(std::move(value))) != nullptr; }
    bool key(string_t& name) override {
        m_key = std::move(name);
        return true;
    }
    bool start_object(std::size_t) override { return open(json::object()); }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t position, const std::string&, const json::exception& e) override {
        m_errorPosition = position;
        m_error = e.what();
        return false;
    }

    bool tooDeep() const { return m_tooDeep; }
    size_t errorPosition() const { return m_errorPosition; }  // characters read, the offending one included
    const std::string& error() const { return m_error; }

private:
    // Places a value in the open container (or as the document) and returns where it now is.
    json* add(json value) {
        if (m_open.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        json& parent = *m_open.back();
        if (parent.is_array()) {
            parent.push_back(std::move(value));
            return &parent.back();
        }
        json& member = parent[m_key];  // a repeated key keeps its last value
        member = std::move(value);
        return &member;
    }
    bool open(json container) {
        if (int(m_open.size()) >= m_maxDepth) {
            m_tooDeep = true;
            return false;
        }
        m_open.push_back(add(std::move(container)));
        return true;
    }
    bool close() {
        m_open.pop_back();
        return true;
    }

    json& m_root;
    const int m_maxDepth;
    std::vector<json*> m_open;  // the containers still open, outermost first
    string_t m_key;
    bool m_tooDeep = false;
    size_t m_errorPosition = 0;
    std::string m_error;
};

// The offset of the first '[' or '{' that opens the (depth + 1)-th level, outside strings.
// Only called once the parser has read that far, so the text before it is well-formed.
size_t offsetOfLevel(std::string_view text, int depth) {
    int level = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++level > depth) return i;
        } else if (c == ']' || c == '}') {
            --level;
        }
    }
    return text.size();
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 4: " prefix (the byte offset is given instead).
std::string reasonOf(std::string_view what) {
    const size_t column = what.find(", column ");
    const size_t start = column != std::string_view::npos ? what.find(": ", column) : what.find("] ");
    if (start != std::string_view::npos) what.remove_prefix(start + 2);
    return std::string(what);
}

} // namespace

Result<nlohmann::json> parseJson(std::string_view text, const JsonLimits& limits) {
    if (text.size() > limits.maxBytes) {
        return makeError("JSON text of " + std::to_string(text.size()) + " bytes is over the limit of " +
                         std::to_string(limits.maxBytes));
    }
    json document;
    DocumentBuilder builder(document, limits.maxDepth);
    if (json::sax_parse(text.begin(), text.end(), &builder)) return document;
    if (builder.tooDeep()) {
        return makeError("invalid JSON at byte " + std::to_string(offsetOfLevel(text, limits.maxDepth)) +
                         ": nested deeper than " + std::to_string(limits.maxDepth) + " levels");
    }
    const size_t offset = builder.errorPosition() == 0 ? 0 : std::min(builder.errorPosition() - 1, text.size());
    return makeError("invalid JSON at byte " + std::to_string(offset) + ": " + reasonOf(builder.error()));
}

std::string dumpJson(const nlohmann::json& value, int indent) {
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace hearsay
