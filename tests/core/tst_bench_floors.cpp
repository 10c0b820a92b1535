// The GPU benchmark's arithmetic, checked against numbers worked out by hand from the model
// dimensions: the benchmark's sizes (turbo included) are known with their real dimensions, the
// bytes and FLOPs behind the floors of large-v3 and turbo, the element bytes per backend and
// precision, the spec-sheet table by device name, and `bench --floors-only --backend cuda`
// writing those floors (with given peaks, so it runs without a GPU).
#include "core/backend/backend.h"
#include "core/backend/q16_split.h"
#include "core/bench/bench_work.h"
#include "core/bench/gpu_specs.h"
#include "core/bench/machine_info.h"
#include "core/bench/roofline.h"
#include "core/model/whisper_config.h"
#include "core/util/json_text.h"
#include "core/util/mapped_file.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using nlohmann::json;

using namespace hearsay;

namespace {

constexpr ElementBytes kHalf{2.0, 2.0, 2.0};  // weights and both caches as half

WhisperConfig named(const char* name) {
    auto c = WhisperConfig::fromName(name);
    if (!c) qFatal("%s: %s", name, c.message().c_str());
    return c.value();
}

bool near(double a, double b, double relative = 1e-12) { return std::fabs(a - b) <= relative * std::fabs(b); }

// Bytes one single-token step reads at cache position p, written out from the dimensions:
// per decoder layer the self-attention q,k,v,o (4d²), cross-attention q,o (2d²) and MLP (8d²)
// weights, the token embedding for the logits (V·d), the cross K/V (2·1500·d per layer) and the
// self K/V of p + 1 positions (2·(p+1)·d per layer).
double handStepBytes(double d, double layers, double vocab, double p, double bytes) {
    const double weights = layers * (4 * d * d + 2 * d * d + 8 * d * d) + vocab * d;
    const double cross = layers * 2 * 1500 * d;
    const double self = layers * 2 * (p + 1) * d;
    return bytes * (weights + cross + self);
}

} // namespace

class TestBenchFloors : public QObject {
    Q_OBJECT

private slots:
    void officialSizesAreKnownWithTheirDimensions() {
        struct Row {
            const char* name;
            int width, encoderLayers, decoderLayers, heads, mels, vocab;
        };
        const Row rows[] = {
            {"tiny", 384, 4, 4, 6, 80, 51865},          {"base", 512, 6, 6, 8, 80, 51865},
            {"small", 768, 12, 12, 12, 80, 51865},      {"medium", 1024, 24, 24, 16, 80, 51865},
            {"large-v3", 1280, 32, 32, 20, 128, 51866}, {"large-v3-turbo", 1280, 32, 4, 20, 128, 51866},
            {"turbo", 1280, 32, 4, 20, 128, 51866},
        };
        for (const Row& r : rows) {
            const WhisperConfig c = named(r.name);
            QCOMPARE(c.nAudioState, r.width);
            QCOMPARE(c.nTextState, r.width);
            QCOMPARE(c.nAudioLayer, r.encoderLayers);
            QCOMPARE(c.nTextLayer, r.decoderLayers);
            QCOMPARE(c.nAudioHead, r.heads);
            QCOMPARE(c.nTextHead, r.heads);
            QCOMPARE(c.nMels, r.mels);
            QCOMPARE(c.nVocab, r.vocab);
            QCOMPARE(c.nAudioCtx, 1500);
            QCOMPARE(c.nTextCtx, 448);
        }
        QVERIFY(!WhisperConfig::fromName("large-v4").ok());
    }

    void largeV3Fp16BytesPerTokenByHand() {
        const WhisperConfig c = named("large-v3");
        // d = 1280, 32 layers, V = 51866: weights 14·1280²·32 + 51866·1280 = 800,391,680 elements,
        // cross K/V 2·1500·1280·32 = 122,880,000, self K/V at p = 0: 2·1·1280·32 = 81,920; × 2 bytes.
        QCOMPARE(decoderStepBytes(c, 0, 1, kHalf), 2.0 * (800391680.0 + 122880000.0 + 81920.0));
        QCOMPARE(decoderStepBytes(c, 0, 1, kHalf), handStepBytes(1280, 32, 51866, 0, 2));
        QCOMPARE(decoderStepBytes(c, 255, 1, kHalf), handStepBytes(1280, 32, 51866, 255, 2));
        // Five beams read the weights and the cross K/V once, the self K/V five times.
        QCOMPARE(decoderStepBytes(c, 10, 5, kHalf), handStepBytes(1280, 32, 51866, 10, 2) + 4 * 2.0 * 32 * 2 * 11 * 1280);

        // The mean over the 256 steps of the fixed work (mean p + 1 = 128.5): 1,867,596,800 bytes,
        // and at the H100 SXM's 3.35 TB/s a floor of 0.5575 ms per token (the FLOP term is far below).
        FixedWork work;
        PeakRates peak;
        peak.flopsPerSecond = 989.4e12;
        peak.bytesPerSecond = 3.35e12;
        const WorkFloors f = computeFloors(c, work, peak, kHalf);
        QVERIFY(near(f.decodeBytesPerToken, 1867596800.0));
        QVERIFY(near(f.decodeMsPerToken, 1e3 * 1867596800.0 / 3.35e12, 1e-9));
        QVERIFY(f.decodeMsPerToken < 0.8);  // the 0.8 ms/token target lies above the floor
        // As built (CUDA fp16: half weights and cross cache, float32 self cache): the self K/V
        // read doubles, 1,888,650,240 bytes, 0.5638 ms.
        const WorkFloors built = computeFloors(c, work, peak, floorElementBytes(BackendKind::Cuda, "f16", Precision::Fp16));
        QVERIFY(near(built.decodeBytesPerToken, 2.0 * 800391680.0 + 2.0 * 122880000.0 + 4.0 * 10526720.0));
        QVERIFY(near(built.decodeMsPerToken, 1e3 * 1888650240.0 / 3.35e12, 1e-9));

        // Encoder: conv1 2·3000·1280·384, conv2 2·1500·1280·3840, per layer 24·1500·1280² + 4·1500²·1280,
        // cross K/V 4·1500·1280² per decoder layer: 2,588,344,320,000 FLOPs.
        QCOMPARE(encoderFlops(c), 2588344320000.0);
        QVERIFY(near(f.encoderMs, 1e3 * 2588344320000.0 / 989.4e12));
    }

    void turboReadsAnEighthOfTheDecoder() {
        const WhisperConfig c = named("large-v3-turbo");
        // 4 decoder layers: weights 14·1280²·4 + 51866·1280 = 158,138,880 elements; cross 30,720,000
        // bytes at fp16; self mean 2·128.5·1280·4·2 = 2,631,680 bytes.
        FixedWork work;
        PeakRates peak;
        peak.flopsPerSecond = 989.4e12;
        peak.bytesPerSecond = 3.35e12;
        const WorkFloors f = computeFloors(c, work, peak, kHalf);
        QVERIFY(near(f.decodeBytesPerToken, 2.0 * 158138880.0 + 30720000.0 + 2631680.0));
        QVERIFY(f.decodeMsPerToken < 0.15);
        // The encoder is large-v3's, with the cross K/V of 4 layers instead of 32.
        QCOMPARE(encoderFlops(c), encoderFlops(named("large-v3")) - 28 * 4.0 * 1500 * 1280 * 1280);
    }

    // Each decode run against its own floor: the bandwidth read right after it, not the median of
    // all readings. tiny on a CPU is memory-bound, so the floor scales as 1 / bandwidth.
    void decodeRunsAgainstTheirOwnFloors() {
        const WhisperConfig c = named("tiny");
        FixedWork work;
        work.decodeSteps = 32;
        PeakRates peak;
        peak.flopsPerSecond = 100e9;
        const ElementBytes bytes{2.0, 4.0, 2.0};
        FixedWorkResult fixed;
        fixed.decodeMsPerToken.values = {4.0, 3.0, 5.0};
        fixed.probeBytesPerSecond.values = {20e9, 30e9, 10e9};
        const Samples byRun = decodeAgainstFloorByRun(c, work, peak, bytes, fixed);
        QCOMPARE(byRun.values.size(), size_t(3));
        for (size_t i = 0; i < 3; ++i) {
            PeakRates at = peak;
            at.bytesPerSecond = fixed.probeBytesPerSecond.values[i];
            QVERIFY(near(byRun.values[i], fixed.decodeMsPerToken.values[i] / computeFloors(c, work, at, bytes).decodeMsPerToken));
        }
        // Memory-bound: 4 ms at 20 GB/s and 3 ms at 30 GB/s are the same fraction of their floors.
        QVERIFY(near(byRun.values[0] / byRun.values[1], (4.0 * 20.0) / (3.0 * 30.0), 1e-9));
        QVERIFY(byRun.values[2] < byRun.values[0]);  // 5 ms at 10 GB/s is nearer its floor
        // Readings that do not pair up with the runs give nothing rather than a wrong pairing.
        fixed.probeBytesPerSecond.values.pop_back();
        QVERIFY(decodeAgainstFloorByRun(c, work, peak, bytes, fixed).values.empty());
    }

    void elementBytesFollowBackendAndPrecision() {
        const ElementBytes cudaHalf = floorElementBytes(BackendKind::Cuda, "f32", Precision::Fp16);
        QCOMPARE(cudaHalf.weights, 2.0);  // half weight matrices whatever the file holds
        QCOMPARE(cudaHalf.caches, 4.0);   // the CUDA self cache is float32 (kernels/README.md)
        QCOMPARE(cudaHalf.crossCache, 2.0);  // the cross cache half (Backend::allocateKv)
        const ElementBytes cudaFloat = floorElementBytes(BackendKind::Cuda, "f16", Precision::Fp32);
        QCOMPARE(cudaFloat.weights, 4.0);
        QCOMPARE(cudaFloat.caches, 4.0);
        QCOMPARE(cudaFloat.crossCache, 4.0);
        const ElementBytes cpuHalf = floorElementBytes(BackendKind::Cpu, "f16", Precision::Fp16);
        QCOMPARE(cpuHalf.weights, 2.0);   // f16 matrices stay f16 in the CPU backend
        QCOMPARE(cpuHalf.caches, 4.0);    // its self cache is float32
        QCOMPARE(cpuHalf.crossCache, 2.0);  // its cross cache half (CpuBackend::allocateKv)
        const ElementBytes cpuFloat = floorElementBytes(BackendKind::Cpu, "f32", Precision::Fp16);
        QCOMPARE(cpuFloat.weights, 4.0);
        QCOMPARE(cpuFloat.caches, 4.0);
        QCOMPARE(cpuFloat.crossCache, 2.0);
        // The CPU's q16 split logits table where its kernels run; never in fp32 nor on CUDA.
        QCOMPARE(cpuHalf.logitsSketch, simd::usingLogitsSketch());
        QCOMPARE(cpuHalf.logitsTable, simd::usingLogitsSketch() ? 66.0 / 32.0 : 0.0);
        QVERIFY(!floorElementBytes(BackendKind::Cpu, "f16", Precision::Fp32).logitsSketch);
        QVERIFY(!cudaHalf.logitsSketch);
        QCOMPARE(floorElementBytes(BackendKind::Cpu, "q8_0", Precision::Fp16).weights, 34.0 / 32.0);  // q8_0 blocks
        QCOMPARE(floorElementBytes(BackendKind::Cpu, "q5_0", Precision::Fp16).weights, 22.0 / 32.0);  // q5_0 blocks
        QCOMPARE(floorElementBytes(BackendKind::Cpu, "q5_1", Precision::Fp16).weights, 24.0 / 32.0);
    }

    void logitsSketchBytes() {
        // One row's logits read the sketch (hi plane and scales) of the text tokens and both planes
        // of the special tokens and of SessionOptions' 256 exact text tokens; beams read it all.
        const WhisperConfig c = named("base");
        ElementBytes split{2.0, 4.0, 2.0};
        split.logitsTable = 66.0 / 32.0;
        split.logitsSketch = true;
        const double layers = 6 * 14.0 * 512 * 512 * 2.0;
        const double caches = 6 * 2.0 * 1 * 512 * 4.0 + 6 * 2.0 * 1500 * 512 * 2.0;
        const double table = 50257.0 * 512 * (1 + 1.0 / 16) + (51865.0 - 50257 + 256) * 512 * 66.0 / 32.0;
        QVERIFY(near(decoderStepBytes(c, 0, 1, split), layers + caches + table));
        const double beamCaches = 6 * 2.0 * 5 * 512 * 4.0 + 6 * 2.0 * 1500 * 512 * 2.0;
        QVERIFY(near(decoderStepBytes(c, 0, 5, split), layers + beamCaches + 51865.0 * 512 * 66.0 / 32.0));
    }

    void specSheetByDeviceName() {
        struct Row {
            const char* name;
            double tbs, tflops;
        };
        const Row known[] = {
            {"NVIDIA H100 80GB HBM3", 3.35, 989.4}, {"NVIDIA H100 PCIe", 2.0, 756.0},   {"NVIDIA H100 NVL", 3.9, 835.0},
            {"NVIDIA H200", 4.8, 989.4},            {"NVIDIA H200 NVL", 4.8, 835.0},    {"NVIDIA A100-SXM4-80GB", 2.039, 312.0},
            {"NVIDIA A100 80GB PCIe", 1.935, 312.0}, {"NVIDIA A100-PCIE-40GB", 1.555, 312.0},
        };
        for (const Row& r : known) {
            const auto spec = lookupGpuSpec(r.name);
            QVERIFY2(spec.has_value(), r.name);
            QCOMPARE(spec->memoryBytesPerSecond, r.tbs * 1e12);
            QCOMPARE(spec->fp16TensorFlops, r.tflops * 1e12);
            QVERIFY(!spec->source.empty());
        }
        QCOMPARE(lookupGpuSpec("nvidia h100 80gb hbm3")->model, std::string("H100 SXM5 80GB"));  // case-insensitive
        for (const char* unknown : {"", "NVIDIA H100", "NVIDIA GeForce RTX 4090", "Tesla T4", "NVIDIA L40S"}) {
            QVERIFY2(!lookupGpuSpec(unknown).has_value(), unknown);  // unknown or ambiguous: no figures
        }
    }

    void gpuDescriptionAndSpecGoIntoTheJson() {
        GpuInfo g;
        g.name = "NVIDIA H200";
        g.computeMajor = 9;
        g.multiprocessors = 132;
        g.memoryBytes = size_t(150) << 30;
        g.driverVersion = 13000;
        g.runtimeVersion = 12080;
        const json j = toJson(g);
        QCOMPARE(j["computeCapability"].get<std::string>(), std::string("9.0"));
        QCOMPARE(j["driverVersion"].get<std::string>(), std::string("13.0"));
        QCOMPARE(j["runtimeVersion"].get<std::string>(), std::string("12.8"));
        QCOMPARE(j["multiprocessors"].get<double>(), 132.0);

        MachineInfo m;
        QVERIFY(toJson(m)["gpu"].is_null());
        m.gpu = g;
        QCOMPARE(toJson(m)["gpu"]["name"].get<std::string>(), std::string("NVIDIA H200"));

        PeakRates p;
        p.flopsPerSecond = 1.0;
        p.bytesPerSecond = 2.0;
        QVERIFY(toJson(p)["specBytesPerSecond"].is_null());
        p.specBytesPerSecond = 4.8e12;
        p.specFlopsPerSecond = 989.4e12;
        QCOMPARE(toJson(p)["specBytesPerSecond"].get<double>(), 4.8e12);
    }

    void floorsOnlyCommandWritesTheGpuFloors() {
        QTemporaryDir dir;
        for (const QString precision : {"fp16", "fp32"}) {
            const QString jsonPath = dir.filePath("floors-" + precision + ".json");
            QProcess p;
            p.start(HEARSAY_CLI_PATH, {"bench", "--floors-only", "--backend", "cuda", "--precision", precision, "--sizes",
                                       "large-v3,large-v3-turbo", "--peak-gflops", "989400", "--peak-gbs", "3350", "--json", jsonPath});
            QVERIFY(p.waitForFinished(60000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
            auto text = readTextFile(jsonPath.toStdString());
            QVERIFY(text.ok());
            auto doc = parseJson(text.value());
            QVERIFY(doc.ok());
            // fp16: half weights and cross cache, float32 self cache; fp32: float32 throughout. Per
            // token (mean of the 256 steps): weights 800,391,680 elements, cross K/V 122,880,000,
            // self K/V 2·128.5·1280·32 = 10,526,720.
            const double halfBytes = precision == "fp16" ? 2.0 : 4.0;
            const double perToken = halfBytes * (800391680.0 + 122880000.0) + 4.0 * 10526720.0;
            QCOMPARE(doc.value()["elementBytes"]["weights"].get<double>(), halfBytes);
            QCOMPARE(doc.value()["elementBytes"]["caches"].get<double>(), 4.0);
            QCOMPARE(doc.value()["elementBytes"]["crossCache"].get<double>(), halfBytes);
            const json& floors = doc.value()["floors"];
            QCOMPARE(floors.size(), size_t(2));
            const json& large = floors[0];
            QCOMPARE(large["name"].get<std::string>(), std::string("large-v3"));
            QVERIFY(near(large["decodeBytesPerToken"].get<double>(), perToken, 1e-9));
            QVERIFY(near(large["decodeMsPerToken"].get<double>(), 1e3 * perToken / 3.35e12, 1e-6));
            QCOMPARE(floors[1]["name"].get<std::string>(), std::string("large-v3-turbo"));
        }
        QProcess bad;
        bad.start(HEARSAY_CLI_PATH, {"bench", "--floors-only", "--backend", "cuda", "--precision", "fp8", "--sizes", "tiny"});
        QVERIFY(bad.waitForFinished(60000));
        QCOMPARE(bad.exitCode(), 2);
        QVERIFY(bad.readAllStandardError().contains("--precision: fp8 not in {fp16,fp32}"));
    }
};

QTEST_APPLESS_MAIN(TestBenchFloors)
#include "tst_bench_floors.moc"
