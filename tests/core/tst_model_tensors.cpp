// Tensor element types and the pieces under the model files: dequantisation of hand-built ggml
// blocks, quantise/dequantise round trips within each format's error bound, fp16/bf16 decoding,
// the non-finite scan, the random-weight scheme, BPE merge derivation and vocabulary repair.
#include "core/model/bpe_merges.h"
#include "core/model/ggml_file.h"
#include "core/model/quantize.h"
#include "core/model/random_init.h"
#include "core/model/tensor.h"
#include "core/model/vocabulary_repair.h"
#include "core/util/half.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <set>

using namespace hearsay;

namespace {

TensorView view(DType dtype, const std::vector<uint8_t>& bytes, int64_t elements) {
    TensorView v;
    v.name = "t";
    v.dtype = dtype;
    v.shape = {elements};
    v.data = reinterpret_cast<const std::byte*>(bytes.data());
    v.bytes = bytes.size();
    return v;
}

void putU16(std::vector<uint8_t>& b, uint16_t v) {
    b.push_back(uint8_t(v & 0xFF));
    b.push_back(uint8_t(v >> 8));
}
void putU32(std::vector<uint8_t>& b, uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}

uint32_t bitsOf(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

} // namespace

class TestModelTensors : public QObject {
    Q_OBJECT
private slots:
    void sizes() {
        QCOMPARE(dtypeBytes(DType::F32, 10), int64_t(40));
        QCOMPARE(dtypeBytes(DType::BF16, 10), int64_t(20));
        QCOMPARE(dtypeBytes(DType::Q4_0, 64), int64_t(36));
        QCOMPARE(dtypeBytes(DType::Q4_1, 64), int64_t(40));
        QCOMPARE(dtypeBytes(DType::Q5_0, 64), int64_t(44));
        QCOMPARE(dtypeBytes(DType::Q5_1, 64), int64_t(48));
        QCOMPARE(dtypeBytes(DType::Q8_0, 64), int64_t(68));
        QCOMPARE(dtypeBytes(DType::Q8_0, 33), int64_t(-1));
        QCOMPARE(*dtypeFromGgmlType(8), DType::Q8_0);
        QCOMPARE(*dtypeFromGgmlType(6), DType::Q5_0);
        QVERIFY(!dtypeFromGgmlType(4).has_value());
        for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0}) {
            QCOMPARE(*dtypeFromGgmlType(ggmlTypeOf(t)), t);
        }
    }

    // Blocks built by hand from ggml's layout; expected values from the format's definition.
    void dequantisesKnownBlocks_data() {
        QTest::addColumn<int>("type");
        QTest::newRow("q4_0") << int(DType::Q4_0);
        QTest::newRow("q4_1") << int(DType::Q4_1);
        QTest::newRow("q5_0") << int(DType::Q5_0);
        QTest::newRow("q5_1") << int(DType::Q5_1);
        QTest::newRow("q8_0") << int(DType::Q8_0);
    }
    void dequantisesKnownBlocks() {
        QFETCH(int, type);
        const DType t = DType(type);
        std::vector<uint8_t> b;
        float expected[32];
        const uint32_t qh = 0xA5C3F00Fu;  // 5th bits: element j uses bit j
        const float d = t == DType::Q8_0 ? 0.125f : t == DType::Q4_1 ? 0.25f : t == DType::Q4_0 ? 0.5f : 1.0f;
        const float m = -1.5f;
        putU16(b, floatToHalf(d));
        if (t == DType::Q4_1 || t == DType::Q5_1) putU16(b, floatToHalf(m));
        if (t == DType::Q5_0 || t == DType::Q5_1) putU32(b, qh);
        if (t == DType::Q8_0) {
            for (int j = 0; j < 32; ++j) {
                const int q = j * 8 - 128;
                b.push_back(uint8_t(int8_t(q)));
                expected[j] = float(q) * d;
            }
        } else {
            for (int j = 0; j < 16; ++j) {
                const int lo = j, hi = 15 - (j * 7) % 16;  // element j and element j + 16
                b.push_back(uint8_t(lo | (hi << 4)));
                int q0 = lo, q1 = hi;
                if (t == DType::Q5_0 || t == DType::Q5_1) {
                    q0 += int((qh >> j) & 1) * 16;
                    q1 += int((qh >> (j + 16)) & 1) * 16;
                }
                switch (t) {
                case DType::Q4_0: expected[j] = float(q0 - 8) * d; expected[j + 16] = float(q1 - 8) * d; break;
                case DType::Q5_0: expected[j] = float(q0 - 16) * d; expected[j + 16] = float(q1 - 16) * d; break;
                default: expected[j] = float(q0) * d + m; expected[j + 16] = float(q1) * d + m; break;
                }
            }
        }
        QCOMPARE(int64_t(b.size()), dtypeBlockBytes(t));
        float out[32];
        convertToFloat(view(t, b, 32), out);
        for (int j = 0; j < 32; ++j) QVERIFY2(out[j] == expected[j], qPrintable(QString("element %1: %2 vs %3").arg(j).arg(out[j]).arg(expected[j])));
    }

    // Quantise then dequantise: every element within the format's bound, per block.
    void roundTripWithinBound_data() { dequantisesKnownBlocks_data(); }
    void roundTripWithinBound() {
        QFETCH(int, type);
        const DType t = DType(type);
        const int64_t n = 32 * 512;
        std::vector<float> x(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
            // Blocks of different scales and offsets, including an all-zero and a constant block.
            const int64_t block = i / 32;
            const double scale = std::ldexp(1.0, int(block % 13) - 6);
            const double offset = (block % 5 == 0) ? 0.3 * scale : 0.0;
            x[size_t(i)] = initValue(11, "round-trip", uint64_t(i), offset, scale);
            if (block == 3) x[size_t(i)] = 0.0f;
            if (block == 4) x[size_t(i)] = 0.75f;
        }
        std::vector<std::byte> q(static_cast<size_t>(dtypeBytes(t, n)));
        quantizeRow(t, x.data(), n, q.data());
        TensorView v;
        v.dtype = t;
        v.shape = {n};
        v.data = q.data();
        v.bytes = q.size();
        std::vector<float> y(static_cast<size_t>(n));
        convertToFloat(v, y.data());
        double sumRel = 0;
        for (int64_t b = 0; b < n / 32; ++b) {
            float lo = x[size_t(b * 32)], hi = lo, amax = 0;
            for (int j = 0; j < 32; ++j) {
                const float v0 = x[size_t(b * 32 + j)];
                lo = std::min(lo, v0);
                hi = std::max(hi, v0);
                amax = std::max(amax, std::fabs(v0));
            }
            // Quantisation step of the format; symmetric 4/5-bit formats clamp the far end by one step.
            double step = 0, steps = 0.5;
            switch (t) {
            case DType::Q4_0: step = amax / 8.0; steps = 1.0; break;
            case DType::Q5_0: step = amax / 16.0; steps = 1.0; break;
            case DType::Q4_1: step = (hi - lo) / 15.0; break;
            case DType::Q5_1: step = (hi - lo) / 31.0; break;
            default: step = amax / 127.0; break;
            }
            // fp16 storage of d and m adds at most 2^-11 relative error each.
            const double bound = steps * step + std::ldexp(double(std::fabs(lo)) + std::fabs(hi), -10) + 1e-30;
            for (int j = 0; j < 32; ++j) {
                const size_t i = size_t(b * 32 + j);
                const double err = std::fabs(double(y[i]) - double(x[i]));
                QVERIFY2(err <= bound, qPrintable(QString("block %1 element %2: |%3 - %4| > %5").arg(b).arg(j).arg(y[i]).arg(x[i]).arg(bound)));
                if (step > 0) sumRel += err / step;
            }
            if (b == 3) {
                for (int j = 0; j < 32; ++j) QCOMPARE(y[size_t(b * 32 + j)], 0.0f);
            }
        }
        // Rounding to nearest: the average error is about a quarter step, far below the bound.
        const double meanRel = sumRel / double(n);
        QVERIFY2(meanRel < 0.35, qPrintable(QString::number(meanRel)));
    }

    void halfAndBfloat() {
        const std::vector<uint16_t> halves = {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x8000, 0x3555};
        const float halfExpected[] = {1.0f, -2.0f, 65504.0f, std::ldexp(1.0f, -24), -0.0f, 0.333251953125f};
        std::vector<uint8_t> b;
        for (auto h : halves) putU16(b, h);
        float out[6];
        convertToFloat(view(DType::F16, b, 6), out);
        for (int i = 0; i < 6; ++i) QCOMPARE(bitsOf(out[i]), bitsOf(halfExpected[i]));

        b.clear();
        for (uint16_t h : {uint16_t(0x3F80), uint16_t(0xC0A0), uint16_t(0x4049)}) putU16(b, h);
        convertToFloat(view(DType::BF16, b, 3), out);
        QCOMPARE(out[0], 1.0f);
        QCOMPARE(out[1], -5.0f);
        QCOMPARE(bitsOf(out[2]), 0x40490000u);
    }

    void findsNonFiniteValues() {
        std::vector<float> f(100, 1.0f);
        std::vector<uint8_t> bytes(400);
        std::memcpy(bytes.data(), f.data(), 400);
        QVERIFY(!findNonFinite(view(DType::F32, bytes, 100)).has_value());
        const float inf = -INFINITY;
        std::memcpy(bytes.data() + 4 * 57, &inf, 4);
        QCOMPARE(findNonFinite(view(DType::F32, bytes, 100)).value_or(-1), int64_t(57));

        std::vector<uint8_t> h;
        for (int i = 0; i < 10; ++i) putU16(h, i == 6 ? 0x7E00 : 0x3C00);  // NaN at 6
        QCOMPARE(findNonFinite(view(DType::F16, h, 10)).value_or(-1), int64_t(6));
        std::vector<uint8_t> bf;
        for (int i = 0; i < 10; ++i) putU16(bf, i == 9 ? 0x7F80 : 0x3F80);
        QCOMPARE(findNonFinite(view(DType::BF16, bf, 10)).value_or(-1), int64_t(9));

        // Long tensors are scanned a chunk at a time: the first bad element of a later chunk, a
        // tensor ending inside a chunk, and the largest finite values (all exponent bits but one).
        const int64_t longCount = 10007;
        std::vector<uint8_t> longHalf;
        for (int64_t i = 0; i < longCount; ++i) putU16(longHalf, i % 2 ? 0x7BFF : 0xFBFF);
        QVERIFY(!findNonFinite(view(DType::F16, longHalf, longCount)).has_value());
        for (int64_t bad : {int64_t(10006), int64_t(9000), int64_t(8192)}) {
            const uint16_t inf = 0x7C00;
            std::memcpy(longHalf.data() + 2 * bad, &inf, 2);
            QCOMPARE(findNonFinite(view(DType::F16, longHalf, longCount)).value_or(-1), bad);
        }
        std::vector<float> longFloat(longCount, -3.4e38f);
        longFloat[5000] = NAN;
        std::vector<uint8_t> longBytes(4 * longCount);
        std::memcpy(longBytes.data(), longFloat.data(), longBytes.size());
        QCOMPARE(findNonFinite(view(DType::F32, longBytes, longCount)).value_or(-1), int64_t(5000));

        // q4_1 with a finite scale but an infinite minimum in the second block.
        std::vector<uint8_t> q;
        for (int block = 0; block < 3; ++block) {
            putU16(q, 0x3C00);
            putU16(q, block == 1 ? 0xFC00 : 0x0000);
            for (int j = 0; j < 16; ++j) q.push_back(0x11);
        }
        QCOMPARE(findNonFinite(view(DType::Q4_1, q, 96)).value_or(-1), int64_t(32));
    }

    // The deterministic scheme: values pinned by the Python harness's NumPy implementation.
    void randomInitMatchesPython() {
        QCOMPARE(fnv1a64("model.encoder.conv1.weight"), uint64_t(0x6cd587027f71ed37ull));
        QCOMPARE(bitsOf(initValue(7, "model.encoder.conv1.weight", 0, 0.0, 1.0 / std::sqrt(240.0))), 0x3ca16ec9u);
        QCOMPARE(bitsOf(initValue(7, "model.decoder.layer_norm.weight", 63, 1.0, 0.1)), 0x3f691cefu);
        QCOMPARE(bitsOf(initValue(123456789, "model.decoder.embed_tokens.weight", 51864 * 64 + 5, 0.0, 0.125)), 0xbe04de2fu);
        QCOMPARE(bitsOf(initValue(0, "", 0, 0.0, 1.0)), 0x3f69d8d1u);
        std::vector<float> chunk(10);
        fillInitValues(7, "x", 1000, 10, 0.5, 2.0, chunk.data());
        for (int i = 0; i < 10; ++i) QCOMPARE(bitsOf(chunk[size_t(i)]), bitsOf(initValue(7, "x", 1000 + uint64_t(i), 0.5, 2.0)));
    }

    void derivesBpeMerges() {
        // ids: a b c ab abc bc  -> abc is built from (ab, c): bc has a higher rank than abc.
        std::vector<std::string> tokens = {"a", "b", "c", "ab", "abc", "bc", "bcab"};
        auto merges = deriveBpeMerges(tokens);
        QVERIFY2(merges.ok(), merges.ok() ? "" : merges.message().c_str());
        QCOMPARE(merges->size(), size_t(4));
        QCOMPARE(merges.value()[0].left + "|" + merges.value()[0].right, std::string("a|b"));
        QCOMPARE(merges.value()[1].left + "|" + merges.value()[1].right, std::string("ab|c"));
        QCOMPARE(merges.value()[2].left + "|" + merges.value()[2].right, std::string("b|c"));
        QCOMPARE(merges.value()[3].left + "|" + merges.value()[3].right, std::string("bc|ab"));
        QCOMPARE(merges.value()[3].rank, 6);
        // "ca" has no lower-ranked parts to merge into: not a BPE vocabulary.
        auto bad = deriveBpeMerges({"a", "b", "c", "cab"});
        QVERIFY(!bad.ok());
        QVERIFY2(bad.message().find("token 3") != std::string::npos, bad.message().c_str());
    }

    // whisper.cpp's test files store ~1,500 tokens lossily; after repair the vocabulary is a
    // consistent byte-level BPE again (unique tokens, every byte, every merge derivable).
    void repairsLossyVocabularies_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("ordinary");
        QTest::newRow("multilingual") << "ggml-vocab-tiny.bin" << 50257;
        QTest::newRow("english") << "ggml-vocab-tiny.en.bin" << 50256;
    }
    void repairsLossyVocabularies() {
        QFETCH(QString, file);
        QFETCH(int, ordinary);
        auto g = openGgml(std::string(HEARSAY_SHARED_DATA_DIR) + "/" + file.toStdString());
        QVERIFY2(g.ok(), g.ok() ? "" : g.message().c_str());
        std::vector<std::string> tokens(g->vocabulary.begin(), g->vocabulary.begin() + ordinary);
        const std::vector<std::string> lossy = tokens;
        QVERIFY(!deriveBpeMerges(lossy).ok());  // the file as stored is not a usable BPE vocabulary
        QCOMPARE(std::set<std::string>(lossy.begin(), lossy.end()).size() < lossy.size(), true);

        auto r = repairWhisperCppVocabulary(tokens, g->config.isMultilingual());
        QVERIFY(r.recognised);
        QVERIFY(r.repaired > 300);
        std::set<std::string> unique(tokens.begin(), tokens.end());
        QCOMPARE(unique.size(), tokens.size());
        std::set<unsigned char> bytes;
        for (int i = 0; i < 256; ++i) {
            QCOMPARE(tokens[size_t(i)].size(), size_t(1));
            bytes.insert(static_cast<unsigned char>(tokens[size_t(i)][0]));
        }
        QCOMPARE(bytes.size(), size_t(256));
        auto merges = deriveBpeMerges(tokens);
        QVERIFY2(merges.ok(), merges.ok() ? "" : merges.message().c_str());
        // Only lossy entries were touched: everything else is byte-identical.
        for (size_t i = 0; i < tokens.size(); ++i) {
            if (tokens[i] != lossy[i]) QVERIFY(lossy[i].find("\xEF\xBF\xBD") != std::string::npos);
        }
        // Idempotent, and a vocabulary that is not Whisper's is left alone.
        QCOMPARE(repairWhisperCppVocabulary(tokens, g->config.isMultilingual()).repaired, 0);
        std::vector<std::string> other = lossy;
        other[94] = "xyz";
        auto refused = repairWhisperCppVocabulary(other, g->config.isMultilingual());
        QVERIFY(!refused.recognised);
        QCOMPARE(refused.repaired, 0);
        QCOMPARE(other[95], lossy[95]);
    }
};

QTEST_APPLESS_MAIN(TestModelTensors)
#include "tst_model_tensors.moc"
