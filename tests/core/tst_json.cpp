// What the project relies on from parseJson/dumpJson (core/util/json_text.h, on nlohmann-json):
// a corrupt or hostile document is an error naming its byte offset, never an exception or a
// crash; nesting and size are bounded; 64-bit integers and doubles keep their value and kind.
#include "core/util/json_text.h"

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

using hearsay::dumpJson;
using hearsay::JsonLimits;
using hearsay::parseJson;
using nlohmann::json;

namespace {

std::string text(const QByteArray& bytes) { return std::string(bytes.constData(), size_t(bytes.size())); }

// The N of "invalid JSON at byte N: ...", or -1 when the message has another form.
long long offsetIn(const std::string& message) {
    const std::string prefix = "invalid JSON at byte ";
    if (message.rfind(prefix, 0) != 0) return -1;
    return std::atoll(message.c_str() + prefix.size());
}

} // namespace

class TestJson : public QObject {
    Q_OBJECT
private slots:
    void parsesNestedDocument() {
        auto doc = parseJson(R"({"a": [1, 2.5, -3e2, true, null], "b": {"c": "x\u00e9\ud83d\ude00\n"}, "big": 6442450944})");
        QVERIFY2(doc.ok(), doc.ok() ? "" : doc.message().c_str());
        const json& j = doc.value();
        QCOMPARE(j.at("a").size(), size_t(5));
        QCOMPARE(j.at("a")[0].get<int>(), 1);
        QCOMPARE(j.at("a")[1].get<double>(), 2.5);
        QVERIFY(j.at("a")[2].is_number_float());
        QCOMPARE(j.at("a")[2].get<double>(), -300.0);
        QVERIFY(j.at("a")[3].get<bool>());
        QVERIFY(j.at("a")[4].is_null());
        QCOMPARE(j.at("b").at("c").get<std::string>(), std::string("x\xc3\xa9\xf0\x9f\x98\x80\n"));
        QCOMPARE(j.at("big").get<int64_t>(), int64_t(6442450944));
        QVERIFY(!j.contains("missing"));
        QCOMPARE(j.value("missing", 7), 7);
    }

    // Every hostile input is refused with the offset of the byte that made it wrong.
    void errorsNameTheByteOffset_data() {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<int>("offset");
        QTest::newRow("empty") << QByteArray("") << 0;
        QTest::newRow("only white space") << QByteArray(" \n\t") << 3;
        QTest::newRow("truncated object") << QByteArray("{\"a\":1") << 6;
        QTest::newRow("truncated string") << QByteArray("{\"a\": \"abc") << 10;
        QTest::newRow("trailing comma") << QByteArray("[1,]") << 3;
        QTest::newRow("trailing garbage") << QByteArray("[1] x") << 4;
        QTest::newRow("missing colon") << QByteArray("{\"a\" 1}") << 5;
        QTest::newRow("key not a string") << QByteArray("{1: 2}") << 1;
        QTest::newRow("bad escape") << QByteArray("\"\\q\"") << 2;
        QTest::newRow("bare word") << QByteArray("nul") << 3;
        QTest::newRow("leading zero") << QByteArray("01") << 1;
        QTest::newRow("lone minus") << QByteArray("-") << 1;
        QTest::newRow("control character") << QByteArray("\"a\x01\"", 4) << 2;
        QTest::newRow("NUL in a string") << QByteArray("\"a\0b\"", 5) << 2;
        QTest::newRow("invalid UTF-8") << QByteArray("[\"ok\", \"a\xff\"]") << 9;
        QTest::newRow("lone surrogate escape") << QByteArray("\"\\ud800\"") << 7;
        QTest::newRow("comment") << QByteArray("/* c */ 1") << 0;
        QTest::newRow("single quotes") << QByteArray("{'a': 1}") << 1;
        QTest::newRow("NaN") << QByteArray("[NaN]") << 1;
        QTest::newRow("number overflow") << QByteArray("[1e400]") << 5;
        QTest::newRow("deep arrays") << QByteArray(1000, '[') << 256;
        QTest::newRow("deep objects") << QByteArray("{\"a\":").repeated(300) << 5 * 256;
        // Brackets inside a string do not count as nesting.
        QTest::newRow("deep after a string of brackets") << QByteArray("[\"[[[\",").append(QByteArray(300, '[')) << 7 + 255;
    }
    void errorsNameTheByteOffset() {
        QFETCH(QByteArray, input);
        QFETCH(int, offset);
        auto doc = parseJson(text(input));
        QVERIFY(!doc.ok());
        QVERIFY2(offsetIn(doc.message()) == offset, doc.message().c_str());
        QVERIFY2(doc.message().size() > std::string("invalid JSON at byte 0: ").size(), doc.message().c_str());
    }

    void nestingIsBoundedByTheLimit() {
        const std::string deepest = std::string(256, '[') + std::string(256, ']');
        QVERIFY(parseJson(deepest).ok());
        const std::string tooDeep = "[" + deepest + "]";
        auto refused = parseJson(tooDeep);
        QVERIFY(!refused.ok());
        QCOMPARE(offsetIn(refused.message()), 256LL);
        QVERIFY2(refused.message().find("256") != std::string::npos, refused.message().c_str());

        JsonLimits two;
        two.maxDepth = 2;
        QVERIFY(parseJson("{\"a\": [1, {}]}", two).ok() == false);
        QVERIFY(parseJson("{\"a\": [1, 2]}", two).ok());
        QCOMPARE(offsetIn(parseJson("[[[1]]]", two).message()), 2LL);
    }

    void sizeIsBoundedByTheLimit() {
        JsonLimits small;
        small.maxBytes = 8;
        QVERIFY(parseJson("[1,2,3]", small).ok());
        auto refused = parseJson("[1,2,3,4]", small);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.message().find("9 bytes") != std::string::npos, refused.message().c_str());
    }

    // Safetensors offsets and file sizes are unsigned 64-bit: they keep every bit both ways.
    void unsigned64RoundTrips() {
        const uint64_t max = std::numeric_limits<uint64_t>::max();
        auto doc = parseJson("[18446744073709551615, 9223372036854775808, -9223372036854775808, 0]");
        QVERIFY(doc.ok());
        const json& a = doc.value();
        QVERIFY(a[0].is_number_unsigned());
        QCOMPARE(a[0].get<uint64_t>(), max);
        QCOMPARE(a[1].get<uint64_t>(), uint64_t(1) << 63);
        QVERIFY(a[2].is_number_integer() && !a[2].is_number_unsigned());
        QCOMPARE(a[2].get<int64_t>(), std::numeric_limits<int64_t>::min());
        QCOMPARE(dumpJson(a), std::string("[18446744073709551615,9223372036854775808,-9223372036854775808,0]"));

        json sizes = {{"bytes", max}, {"offset", uint64_t(6442450944)}};
        auto back = parseJson(dumpJson(sizes, 2));
        QVERIFY(back.ok());
        QCOMPARE(back.value().at("bytes").get<uint64_t>(), max);
        QCOMPARE(back.value().at("offset").get<uint64_t>(), uint64_t(6442450944));
        // One past 2^64 - 1 is no integer any more: a double, as in any JSON reader.
        auto beyond = parseJson("18446744073709551616");
        QVERIFY(beyond.ok() && beyond.value().is_number_float());
    }

    // Regression (tests/fuzz/regressions/fuzz_json): numbers keep their value and kind through
    // dump and parse: -0.0 and 1.0 stay doubles, doubles keep every digit, integers stay integers.
    void numbersRoundTrip() {
        for (double v : {-0.0, 1.0, 0.1, 1.0 / 3.0, 1e-300, 6.02214076e23, -2.5e-7, 123456789.123456789,
                         std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min()}) {
            const std::string once = dumpJson(json(v));
            auto back = parseJson(once);
            QVERIFY2(back.ok() && back.value().is_number_float(), once.c_str());
            QCOMPARE(back.value().get<double>(), v);
            QCOMPARE(std::signbit(back.value().get<double>()), std::signbit(v));
            QCOMPARE(dumpJson(back.value()), once);
        }
        QCOMPARE(dumpJson(json(1.0)), std::string("1.0"));
        QCOMPARE(dumpJson(json(-0.0)), std::string("-0.0"));
        QCOMPARE(dumpJson(json(int64_t(-7))), std::string("-7"));
        QCOMPARE(dumpJson(json(size_t(1024))), std::string("1024"));
        QCOMPARE(dumpJson(json(std::nan(""))), std::string("null"));
    }

    void stringsRoundTrip() {
        json j;
        j["name"] = "tab\there \"quoted\" \\ \x01 \xc3\xa9";
        j["list"] = {1.5, "two"};
        for (int indent : {-1, 2}) {
            auto back = parseJson(dumpJson(j, indent));
            QVERIFY(back.ok());
            QVERIFY(back.value() == j);
        }
        // Bytes that are not UTF-8 (a path, a partial character) are written, as U+FFFD, not thrown.
        QCOMPARE(dumpJson(json("a\xff" "b")), std::string("\"a\xef\xbf\xbd" "b\""));
    }

    void repeatedKeyKeepsTheLastValue() {
        auto doc = parseJson(R"({"a": 1, "b": 2, "a": [3]})");
        QVERIFY(doc.ok());
        QCOMPARE(doc.value().size(), size_t(2));
        QVERIFY(doc.value().at("a") == json::array({3}));
    }
};

QTEST_APPLESS_MAIN(TestJson)
#include "tst_json.moc"
