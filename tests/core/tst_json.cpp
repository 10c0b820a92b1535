// The JSON reader used for configs and safetensors headers: valid documents round-trip,
// corrupt ones give an error with a position, never a crash.
#include "core/util/json.h"

#include <QtTest>

using hearsay::Json;

class TestJson : public QObject {
    Q_OBJECT
private slots:
    void parsesNestedDocument() {
        auto doc = Json::parse(R"({"a": [1, 2.5, -3e2, true, null], "b": {"c": "x\u00e9\ud83d\ude00\n"}, "big": 6442450944})");
        QVERIFY2(doc.ok(), doc.ok() ? "" : doc.message().c_str());
        const Json& j = doc.value();
        QCOMPARE(j["a"].toArray().size(), size_t(5));
        QCOMPARE(j["a"].toArray()[0].toInt(), int64_t(1));
        QCOMPARE(j["a"].toArray()[1].toDouble(), 2.5);
        QCOMPARE(j["a"].toArray()[2].toDouble(), -300.0);
        QVERIFY(j["a"].toArray()[3].toBool());
        QVERIFY(j["a"].toArray()[4].isNull());
        QCOMPARE(j["b"]["c"].toString(), std::string("x\xc3\xa9\xf0\x9f\x98\x80\n"));
        QCOMPARE(j["big"].toInt(), int64_t(6442450944));
        QVERIFY(j["missing"].isNull());
    }

    void roundTrips() {
        Json j;
        j["name"] = "tab\there \"quoted\"";
        j["n"] = 42;
        j["list"].push_back(Json(1.5));
        j["list"].push_back(Json("two"));
        for (int indent : {-1, 2}) {
            auto back = Json::parse(j.dump(indent));
            QVERIFY(back.ok());
            QCOMPARE(back.value()["name"].toString(), std::string("tab\there \"quoted\""));
            QCOMPARE(back.value()["n"].toInt(), int64_t(42));
            QCOMPARE(back.value()["list"].toArray()[1].toString(), std::string("two"));
        }
    }

    // Regression (tests/fuzz/fuzz_json): numbers keep their value and kind through dump and
    // parse: -0.0 and 1.0 stay doubles, and doubles keep every digit.
    void numbersRoundTrip() {
        for (double v : {-0.0, 1.0, 0.1, 1.0 / 3.0, 1e-300, 6.02214076e23, -2.5e-7, 123456789.123456789}) {
            auto back = Json::parse(Json(v).dump());
            QVERIFY(back.ok());
            QCOMPARE(back.value().toDouble(), v);
            QCOMPARE(std::signbit(back.value().toDouble()), std::signbit(v));
            QCOMPARE(back.value().dump(), Json(v).dump());
        }
        QCOMPARE(Json(int64_t(-7)).dump(), std::string("-7"));
    }

    void rejectsCorruptInput_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("empty") << QByteArray("");
        QTest::newRow("truncated object") << QByteArray("{\"a\": 1");
        QTest::newRow("truncated string") << QByteArray("{\"a\": \"abc");
        QTest::newRow("trailing garbage") << QByteArray("{} x");
        QTest::newRow("bad escape") << QByteArray("\"\\q\"");
        QTest::newRow("bare word") << QByteArray("nul");
        QTest::newRow("missing colon") << QByteArray("{\"a\" 1}");
        QTest::newRow("control char") << QByteArray("\"a\x01\"");
        QTest::newRow("deep nesting") << QByteArray(1000, '[');
    }
    void rejectsCorruptInput() {
        QFETCH(QByteArray, text);
        auto doc = Json::parse(std::string_view(text.constData(), size_t(text.size())));
        QVERIFY(!doc.ok());
        QVERIFY(doc.message().find("invalid JSON at byte") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestJson)
#include "tst_json.moc"
