// The whole network against a second, independent implementation: a plain double-precision
// forward pass written here from Whisper's definition (no backend, no cache), on small
// random-weight models. Checks the encoder output and the logits of every decode step.
#include "engine_test_model.h"

#include <QtTest>

#include <cmath>
#include <vector>

using namespace hearsay;

namespace {

using Matrix = std::vector<double>;  // row-major

// Reads a weight view as doubles.
Matrix weight(const TensorView& view) {
    const float* p = reinterpret_cast<const float*>(view.data);
    return Matrix(p, p + view.elements());
}

// y[rows][out] = x[rows][in] · w[out][in]ᵀ + b
Matrix linear(const Matrix& x, int rows, int in, const LinearWeights& lw, int out) {
    const Matrix w = weight(lw.weight);
    const Matrix b = lw.bias.empty() ? Matrix(size_t(out), 0.0) : weight(lw.bias);
    Matrix y(size_t(rows) * size_t(out));
    for (int r = 0; r < rows; ++r) {
        for (int o = 0; o < out; ++o) {
            double acc = b[size_t(o)];
            for (int i = 0; i < in; ++i) acc += x[size_t(r * in + i)] * w[size_t(o * in + i)];
            y[size_t(r * out + o)] = acc;
        }
    }
    return y;
}

Matrix layerNorm(const Matrix& x, int rows, int d, const LayerNormWeights& ln) {
    const Matrix g = weight(ln.gamma), b = weight(ln.beta);
    Matrix y(x.size());
    for (int r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (int c = 0; c < d; ++c) mean += x[size_t(r * d + c)];
        mean /= d;
        for (int c = 0; c < d; ++c) var += (x[size_t(r * d + c)] - mean) * (x[size_t(r * d + c)] - mean);
        var /= d;
        for (int c = 0; c < d; ++c) y[size_t(r * d + c)] = (x[size_t(r * d + c)] - mean) / std::sqrt(var + 1e-5) * g[size_t(c)] + b[size_t(c)];
    }
    return y;
}

void gelu(Matrix& x) {
    for (auto& v : x) v = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
}

// Multi-head attention of query rows over key rows; causal: query i sees keys ≤ i.
Matrix attention(const Matrix& xq, int rows, const Matrix& xkv, int keyRows, const AttentionWeights& a, int d,
                 int heads, bool causal) {
    const Matrix q = linear(xq, rows, d, a.query, d), k = linear(xkv, keyRows, d, a.key, d);
    const Matrix v = linear(xkv, keyRows, d, a.value, d);
    const int hd = d / heads;
    Matrix out(size_t(rows) * size_t(d));
    for (int h = 0; h < heads; ++h) {
        for (int i = 0; i < rows; ++i) {
            const int visible = causal ? i + 1 : keyRows;
            std::vector<double> s(static_cast<size_t>(visible));
            double maxScore = -1e300, sum = 0;
            for (int j = 0; j < visible; ++j) {
                double dot = 0;
                for (int c = 0; c < hd; ++c) dot += q[size_t(i * d + h * hd + c)] * k[size_t(j * d + h * hd + c)];
                s[size_t(j)] = dot / std::sqrt(double(hd));
                maxScore = std::max(maxScore, s[size_t(j)]);
            }
            for (auto& x : s) sum += (x = std::exp(x - maxScore));
            for (int c = 0; c < hd; ++c) {
                double acc = 0;
                for (int j = 0; j < visible; ++j) acc += s[size_t(j)] / sum * v[size_t(j * d + h * hd + c)];
                out[size_t(i * d + h * hd + c)] = acc;
            }
        }
    }
    return linear(out, rows, d, a.out, d);
}

void addInPlace(Matrix& x, const Matrix& y) {
    for (size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

// Conv1d, kernel 3, padding 1: x is [length][cin] (time-major), w [cout][cin][3].
Matrix conv(const Matrix& x, int length, int cin, const LinearWeights& lw, int cout, int stride) {
    const Matrix w = weight(lw.weight), b = weight(lw.bias);
    const int outLength = (length - 1) / stride + 1;
    Matrix y(size_t(outLength) * size_t(cout));
    for (int t = 0; t < outLength; ++t) {
        for (int o = 0; o < cout; ++o) {
            double acc = b[size_t(o)];
            for (int c = 0; c < cin; ++c) {
                for (int k = 0; k < 3; ++k) {
                    const int src = t * stride + k - 1;
                    if (src >= 0 && src < length) acc += w[size_t((o * cin + c) * 3 + k)] * x[size_t(src * cin + c)];
                }
            }
            y[size_t(t * cout + o)] = acc;
        }
    }
    return y;
}

Matrix referenceEncoder(const WhisperModel& model, const LogMel& mel) {
    const WhisperConfig& c = model.config();
    const WhisperWeights& w = model.weights();
    const int t = c.nAudioCtx, d = c.nAudioState;
    Matrix x(size_t(mel.frames) * size_t(mel.nMels));
    for (int f = 0; f < mel.frames; ++f) {
        for (int m = 0; m < mel.nMels; ++m) x[size_t(f * mel.nMels + m)] = mel.at(m, f);
    }
    Matrix h = conv(x, mel.frames, mel.nMels, w.conv1, d, 1);
    gelu(h);
    h = conv(h, mel.frames, d, w.conv2, d, 2);
    gelu(h);
    const Matrix pos = weight(w.encoderPositional);
    for (size_t i = 0; i < h.size(); ++i) h[i] += pos[i];
    for (const auto& layer : w.encoderLayers) {
        Matrix ln = layerNorm(h, t, d, layer.attnLn);
        addInPlace(h, attention(ln, t, ln, t, layer.attn, d, c.nAudioHead, false));
        ln = layerNorm(h, t, d, layer.mlpLn);
        Matrix hidden = linear(ln, t, d, layer.fc1, 4 * d);
        gelu(hidden);
        addInPlace(h, linear(hidden, t, 4 * d, layer.fc2, d));
    }
    return layerNorm(h, t, d, w.encoderLn);
}

// Logits of the last position of `tokens`.
std::vector<double> referenceLogits(const WhisperModel& model, const Matrix& encoded, const std::vector<int>& tokens) {
    const WhisperConfig& c = model.config();
    const WhisperWeights& w = model.weights();
    const int n = int(tokens.size()), d = c.nTextState;
    const Matrix table = weight(w.tokenEmbedding), pos = weight(w.decoderPositional);
    Matrix x(size_t(n) * size_t(d));
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < d; ++j) x[size_t(i * d + j)] = table[size_t(tokens[size_t(i)] * d + j)] + pos[size_t(i * d + j)];
    }
    for (const auto& layer : w.decoderLayers) {
        Matrix ln = layerNorm(x, n, d, layer.selfAttnLn);
        addInPlace(x, attention(ln, n, ln, n, layer.selfAttn, d, c.nTextHead, true));
        ln = layerNorm(x, n, d, layer.crossAttnLn);
        addInPlace(x, attention(ln, n, encoded, c.nAudioCtx, layer.crossAttn, d, c.nTextHead, false));
        ln = layerNorm(x, n, d, layer.mlpLn);
        Matrix hidden = linear(ln, n, d, layer.fc1, 4 * d);
        gelu(hidden);
        addInPlace(x, linear(hidden, n, 4 * d, layer.fc2, d));
    }
    Matrix last(x.end() - d, x.end());
    last = layerNorm(last, 1, d, w.decoderLn);
    std::vector<double> logits(size_t(c.nVocab));
    for (int v = 0; v < c.nVocab; ++v) {
        double acc = 0;
        for (int j = 0; j < d; ++j) acc += last[size_t(j)] * table[size_t(v * d + j)];
        logits[size_t(v)] = acc;
    }
    return logits;
}

} // namespace

class TestEngineForward : public QObject {
    Q_OBJECT
private slots:
    void matchesPlainImplementation_data() {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("audioCtx");
        QTest::addColumn<int>("threads");
        QTest::addColumn<bool>("selfCache");
        QTest::addColumn<bool>("crossCache");
        // audioCtx ≥ 32 puts the encoder on the GEMM attention path; 40 decode steps put the
        // cache-off self-attention there too.
        QTest::newRow("d32 h2 caches on") << 32 << 2 << 48 << 2 << true << true;
        QTest::newRow("d32 h2 caches off") << 32 << 2 << 48 << 1 << false << false;
        QTest::newRow("d48 h3 short audio") << 48 << 3 << 20 << 3 << true << false;
    }
    void matchesPlainImplementation() {
        QFETCH(int, width);
        QFETCH(int, heads);
        QFETCH(int, audioCtx);
        QFETCH(int, threads);
        QFETCH(bool, selfCache);
        QFETCH(bool, crossCache);
        auto model = test::makeRandomModel(test::customConfig(width, 2, heads, audioCtx), 7);
        SessionOptions options;
        options.maxBeams = 2;
        options.selfAttentionCache = selfCache;
        options.crossAttentionCache = crossCache;
        auto session = InferenceSession::create(model, test::cpuBackend(threads), options);
        QVERIFY2(session.ok(), session.ok() ? "" : session.message().c_str());
        const LogMel mel = test::syntheticMel(80, 2 * audioCtx, 3);
        QVERIFY(session.value()->encode(mel).ok());

        const Matrix encoded = referenceEncoder(*model, mel);
        const double encoderError = test::relativeError(session.value()->encoderOutput(), encoded);
        qInfo("encoder relative error %.3g", encoderError);
        QVERIFY(encoderError < 1e-5);

        // Prompt of three tokens, then 40 forced steps; check a few positions along the way.
        std::vector<int> tokens = {50258, 50259, 50359};
        std::vector<float> logits;
        double worst = 0;
        for (int step = 0; step < 40; ++step) {
            QVERIFY(session.value()->decode({tokens}, logits).ok());
            if (step % 13 == 0 || step == 39) {
                worst = std::max(worst, test::relativeError(logits, referenceLogits(*model, encoded, tokens)));
            }
            tokens.push_back((step * 7919) % 50000);
        }
        qInfo("logits relative error %.3g", worst);
        QVERIFY(worst < 1e-5);
    }
};

QTEST_APPLESS_MAIN(TestEngineForward)
#include "tst_engine_forward.moc"
