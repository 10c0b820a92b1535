// Recursive-descent JSON parser (bounded depth) and writer.
#include "core/util/json.h"

#include "core/util/utf8.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <limits>

namespace hearsay {
namespace {

constexpr int kMaxDepth = 256;

class Parser {
public:
    explicit Parser(std::string_view text) : m_text(text) {}

    Result<Json> parseDocument() {
        Json value;
        if (!parseValue(value, 0)) return fail();
        skipSpace();
        if (m_pos != m_text.size()) {
            m_error = "unexpected trailing characters";
            return fail();
        }
        return value;
    }

private:
    Error fail() const {
        return makeError("invalid JSON at byte " + std::to_string(m_pos) + ": " + m_error);
    }

    void skipSpace() {
        while (m_pos < m_text.size()) {
            char c = m_text[m_pos];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') ++m_pos;
            else break;
        }
    }

    bool expectWord(std::string_view word) {
        if (m_text.substr(m_pos, word.size()) != word) {
            m_error = "unexpected token";
            return false;
        }
        m_pos += word.size();
        return true;
    }

    bool parseValue(Json& out, int depth) {
        if (depth > kMaxDepth) {
            m_error = "nesting too deep";
            return false;
        }
        skipSpace();
        if (m_pos >= m_text.size()) {
            m_error = "unexpected end of input";
            return false;
        }
        char c = m_text[m_pos];
        switch (c) {
        case '{': return parseObject(out, depth);
        case '[': return parseArray(out, depth);
        case '"': {
            std::string s;
            if (!parseString(s)) return false;
            out = Json(std::move(s));
            return true;
        }
        case 't': if (!expectWord("true")) return false; out = Json(true); return true;
        case 'f': if (!expectWord("false")) return false; out = Json(false); return true;
        case 'n': if (!expectWord("null")) return false; out = Json(); return true;
        default:
            if (c == '-' || (c >= '0' && c <= '9')) return parseNumber(out);
            m_error = std::string("unexpected character '") + c + "'";
            return false;
        }
    }

    bool parseObject(Json& out, int depth) {
        ++m_pos; // {
        Json::Object object;
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == '}') {
            ++m_pos;
            out = Json(std::move(object));
            return true;
        }
        while (true) {
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != '"') {
                m_error = "expected a string key";
                return false;
            }
            std::string key;
            if (!parseString(key)) return false;
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != ':') {
                m_error = "expected ':'";
                return false;
            }
            ++m_pos;
            Json value;
            if (!parseValue(value, depth + 1)) return false;
            object.insert_or_assign(std::move(key), std::move(value));
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ',') { ++m_pos; continue; }
            if (m_pos < m_text.size() && m_text[m_pos] == '}') { ++m_pos; break; }
            m_error = "expected ',' or '}'";
            return false;
        }
        out = Json(std::move(object));
        return true;
    }

    bool parseArray(Json& out, int depth) {
        ++m_pos; // [
        Json::Array array;
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == ']') {
            ++m_pos;
            out = Json(std::move(array));
            return true;
        }
        while (true) {
            Json value;
            if (!parseValue(value, depth + 1)) return false;
            array.push_back(std::move(value));
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ',') { ++m_pos; continue; }
            if (m_pos < m_text.size() && m_text[m_pos] == ']') { ++m_pos; break; }
            m_error = "expected ',' or ']'";
            return false;
        }
        out = Json(std::move(array));
        return true;
    }

    bool parseHex4(uint32_t& out) {
        if (m_pos + 4 > m_text.size()) {
            m_error = "truncated \\u escape";
            return false;
        }
        out = 0;
        for (int i = 0; i < 4; ++i) {
            char c = m_text[m_pos++];
            out <<= 4;
            if (c >= '0' && c <= '9') out |= uint32_t(c - '0');
            else if (c >= 'a' && c <= 'f') out |= uint32_t(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') out |= uint32_t(c - 'A' + 10);
            else {
                m_error = "bad hex digit in \\u escape";
                return false;
            }
        }
        return true;
    }

    bool parseString(std::string& out) {
        ++m_pos; // opening quote
        while (true) {
            if (m_pos >= m_text.size()) {
                m_error = "unterminated string";
                return false;
            }
            char c = m_text[m_pos++];
            if (c == '"') return true;
            if (static_cast<unsigned char>(c) < 0x20) {
                m_error = "control character in string";
                return false;
            }
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_pos >= m_text.size()) {
                m_error = "unterminated escape";
                return false;
            }
            char e = m_text[m_pos++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                uint32_t cp = 0;
                if (!parseHex4(cp)) return false;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    // A high surrogate must be followed by a low surrogate escape.
                    uint32_t low = 0;
                    if (m_text.substr(m_pos, 2) == "\\u") {
                        m_pos += 2;
                        if (!parseHex4(low)) return false;
                        if (low >= 0xDC00 && low <= 0xDFFF) {
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        } else {
                            appendUtf8(out, 0xFFFD);
                            cp = low;
                        }
                    } else {
                        cp = 0xFFFD;
                    }
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    cp = 0xFFFD;
                }
                appendUtf8(out, cp);
                break;
            }
            default:
                m_error = "bad escape";
                return false;
            }
        }
    }

    bool parseNumber(Json& out) {
        size_t start = m_pos;
        if (m_text[m_pos] == '-') ++m_pos;
        bool integer = true;
        auto digits = [&] {
            size_t s = m_pos;
            while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9') ++m_pos;
            return m_pos > s;
        };
        if (!digits()) {
            m_error = "bad number";
            return false;
        }
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            integer = false;
            ++m_pos;
            if (!digits()) {
                m_error = "bad fraction";
                return false;
            }
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            integer = false;
            ++m_pos;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) ++m_pos;
            if (!digits()) {
                m_error = "bad exponent";
                return false;
            }
        }
        std::string token(m_text.substr(start, m_pos - start));
        if (integer) {
            errno = 0;
            char* end = nullptr;
            long long v = std::strtoll(token.c_str(), &end, 10);
            if (errno == 0) {
                out = Json(static_cast<int64_t>(v));
                return true;
            }
        }
        out = Json(std::strtod(token.c_str(), nullptr));
        return true;
    }

    std::string_view m_text;
    size_t m_pos = 0;
    std::string m_error;
};

const Json& nullJson() {
    static const Json value;
    return value;
}

} // namespace

Result<Json> Json::parse(std::string_view text) { return Parser(text).parseDocument(); }

int64_t Json::toInt(int64_t fallback) const {
    if (!isNumber()) return fallback;
    if (m_isInteger) return m_integer;
    if (!std::isfinite(m_number) || std::abs(m_number) > 9.0e18) return fallback;
    return static_cast<int64_t>(m_number);
}

const std::string& Json::toString() const {
    static const std::string empty;
    return isString() ? m_string : empty;
}

const Json::Array& Json::toArray() const {
    static const Array empty;
    return isArray() ? *m_array : empty;
}

const Json::Object& Json::toObject() const {
    static const Object empty;
    return isObject() ? *m_object : empty;
}

const Json& Json::operator[](std::string_view key) const {
    if (!isObject()) return nullJson();
    auto it = m_object->find(key);
    return it == m_object->end() ? nullJson() : it->second;
}

bool Json::contains(std::string_view key) const {
    return isObject() && m_object->find(key) != m_object->end();
}

Json& Json::operator[](const std::string& key) {
    if (!isObject()) {
        *this = Json(Object{});
    }
    return (*m_object)[key];
}

void Json::push_back(Json value) {
    if (!isArray()) {
        *this = Json(Array{});
    }
    m_array->push_back(std::move(value));
}

std::string jsonEscape(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += char(c);
            }
        }
    }
    return out;
}

std::string Json::dump(int indent) const {
    std::string out;
    dumpTo(out, indent, 0);
    return out;
}

void Json::dumpTo(std::string& out, int indent, int depth) const {
    auto newline = [&](int d) {
        if (indent < 0) return;
        out += '\n';
        out.append(size_t(indent * d), ' ');
    };
    switch (m_type) {
    case Type::Null: out += "null"; break;
    case Type::Bool: out += m_bool ? "true" : "false"; break;
    case Type::Number:
        if (m_isInteger) {
            out += std::to_string(m_integer);
        } else if (!std::isfinite(m_number)) {
            out += "null";
        } else {
            // The shortest of 15 or 17 significant digits that reads back as the same double,
            // kept a non-integer on re-reading ("-0.0", "1.0", not "-0", "1").
            char buf[40];
            std::snprintf(buf, sizeof buf, "%.15g", m_number);
            if (std::strtod(buf, nullptr) != m_number) std::snprintf(buf, sizeof buf, "%.17g", m_number);
            out += buf;
            if (std::strpbrk(buf, ".eE") == nullptr) out += ".0";
        }
        break;
    case Type::String:
        out += '"';
        out += jsonEscape(m_string);
        out += '"';
        break;
    case Type::Array: {
        out += '[';
        bool first = true;
        for (const Json& v : *m_array) {
            if (!first) out += ',';
            first = false;
            newline(depth + 1);
            v.dumpTo(out, indent, depth + 1);
        }
        if (!m_array->empty()) newline(depth);
        out += ']';
        break;
    }
    case Type::Object: {
        out += '{';
        bool first = true;
        for (const auto& [k, v] : *m_object) {
            if (!first) out += ',';
            first = false;
            newline(depth + 1);
            out += '"';
            out += jsonEscape(k);
            out += indent < 0 ? "\":" : "\": ";
            v.dumpTo(out, indent, depth + 1);
        }
        if (!m_object->empty()) newline(depth);
        out += '}';
        break;
    }
    }
}

} // namespace hearsay
