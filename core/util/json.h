// A small JSON reader and writer for model configs, safetensors headers, tokenizer files
// and the CLI's JSON output. Strict RFC 8259 parsing with depth and size limits, so a
// corrupt file yields an error with its byte offset instead of a crash.
#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

class Json {
public:
    enum class Type { Null, Bool, Number, String, Array, Object };
    using Array = std::vector<Json>;
    using Object = std::map<std::string, Json, std::less<>>;

    Json() = default;
    Json(std::nullptr_t) {}
    Json(bool b) : m_type(Type::Bool), m_bool(b) {}
    Json(int v) : Json(static_cast<int64_t>(v)) {}
    Json(int64_t v) : m_type(Type::Number), m_number(double(v)), m_integer(v), m_isInteger(true) {}
    Json(size_t v) : Json(static_cast<int64_t>(v)) {}
    Json(double v) : m_type(Type::Number), m_number(v) {}
    Json(const char* s) : m_type(Type::String), m_string(s) {}
    Json(std::string s) : m_type(Type::String), m_string(std::move(s)) {}
    Json(std::string_view s) : m_type(Type::String), m_string(s) {}
    Json(Array a) : m_type(Type::Array), m_array(std::make_shared<Array>(std::move(a))) {}
    Json(Object o) : m_type(Type::Object), m_object(std::make_shared<Object>(std::move(o))) {}

    static Result<Json> parse(std::string_view text);

    Type type() const { return m_type; }
    bool isNull() const { return m_type == Type::Null; }
    bool isBool() const { return m_type == Type::Bool; }
    bool isNumber() const { return m_type == Type::Number; }
    bool isInteger() const { return m_type == Type::Number && m_isInteger; }
    bool isString() const { return m_type == Type::String; }
    bool isArray() const { return m_type == Type::Array; }
    bool isObject() const { return m_type == Type::Object; }

    bool toBool(bool fallback = false) const { return isBool() ? m_bool : fallback; }
    double toDouble(double fallback = 0.0) const { return isNumber() ? m_number : fallback; }
    int64_t toInt(int64_t fallback = 0) const;
    const std::string& toString() const;  // empty string unless a string
    const Array& toArray() const;         // empty array unless an array
    const Object& toObject() const;       // empty object unless an object

    // Object member lookup; returns a null value when absent or not an object.
    const Json& operator[](std::string_view key) const;
    bool contains(std::string_view key) const;
    // Mutable access for building documents; turns a null value into an object/array.
    Json& operator[](const std::string& key);
    void push_back(Json value);

    // Compact when indent < 0, else pretty-printed with that many spaces.
    std::string dump(int indent = -1) const;

private:
    void dumpTo(std::string& out, int indent, int depth) const;

    Type m_type = Type::Null;
    bool m_bool = false;
    double m_number = 0.0;
    int64_t m_integer = 0;
    bool m_isInteger = false;
    std::string m_string;
    std::shared_ptr<Array> m_array;
    std::shared_ptr<Object> m_object;
};

// Escapes a string for inclusion in JSON output (without the surrounding quotes).
std::string jsonEscape(std::string_view s);

} // namespace hearsay
