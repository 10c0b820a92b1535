// The decode step as a recording (Backend::record) on the CPU, where a recording is a tape of
// op closures: ops inside record() do not run; replays read the index buffers' current values;
// the forbidden calls throw and leave the backend usable. Session level: with step graphs on,
// greedy decoding, beam search with reorders, cache switches flipped mid-way and the cross
// cache off give logits bit-identical to graphs off, and the counters show one recording per
// shape (beam count, cross switch, buffers) and a replay for every later step.
#include "core/backend/cpu_backend.h"
#include "engine_test_model.h"

#include <QtTest>

#include <algorithm>
#include <numeric>
#include <stdexcept>

using namespace hearsay;

namespace {

const std::vector<int> kStart = {50258, 50259, 50359};  // <|startoftranscript|><|en|><|transcribe|>

std::vector<float> randomValues(size_t n, uint64_t seed) {
    std::vector<float> v(n);
    fillInitValues(seed, "step", 0, n, 0.0, 1.0, v.data());
    return v;
}

std::unique_ptr<DeviceBuffer> put(Backend& backend, const std::vector<float>& host) {
    auto buffer = backend.allocate(host.size());
    backend.upload(BufferView(buffer.get()), host.data(), host.size());
    return buffer;
}

std::vector<float> get(Backend& backend, DeviceBuffer& buffer) {
    std::vector<float> host(buffer.elements());
    backend.download(BufferView(&buffer), host.data(), host.size());
    return host;
}

// What one decode() call produced, and the session's counters at the end.
struct Trace {
    std::vector<float> logits;  // every call's, concatenated
    std::vector<int> rows;      // rows each call ran (1 per beam for a step)
    SessionTimings timings;
};

} // namespace

class TestStepRecording : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const WhisperModel> m_model = test::makeRandomModel(test::customConfig(48, 2, 3, 64), 31);
    std::shared_ptr<Backend> m_backend = test::cpuBackend(2);
    LogMel m_mel = test::syntheticMel(80, 128, 5);

    std::unique_ptr<InferenceSession> newSession(bool graphs, int beams, bool crossCache = true) {
        SessionOptions options;
        options.maxBeams = beams;
        options.stepGraphs = graphs;
        options.crossAttentionCache = crossCache;
        auto session = InferenceSession::create(m_model, m_backend, options);
        if (!session) qFatal("%s", session.message().c_str());
        if (auto ok = session.value()->encode(m_mel); !ok) qFatal("%s", ok.message().c_str());
        return std::move(session).value();
    }

    // One decode() call, recorded into the trace; fails the test on an error.
    static void decodeInto(InferenceSession& session, const std::vector<std::vector<int>>& beams, Trace& trace,
                           std::vector<float>& logits) {
        const int before = session.timings().tokensDecoded;
        if (auto ok = session.decode(beams, logits); !ok) qFatal("%s", ok.message().c_str());
        trace.logits.insert(trace.logits.end(), logits.begin(), logits.end());
        trace.rows.push_back(session.timings().tokensDecoded - before);
    }

    static int argmax(const float* row, int n) { return static_cast<int>(std::max_element(row, row + n) - row); }

    // Greedy decoding for `steps` calls; `flip(session, call)` runs before each call (switches).
    Trace greedy(bool graphs, int steps, bool crossCache,
                 const std::function<void(InferenceSession&, int)>& flip = {},
                 std::vector<int> tokens = kStart) {
        auto session = newSession(graphs, 1, crossCache);
        Trace trace;
        std::vector<float> logits;
        const int vocab = m_model->config().nVocab;
        for (int call = 0; call < steps; ++call) {
            if (flip) flip(*session, call);
            decodeInto(*session, {tokens}, trace, logits);
            tokens.push_back(argmax(logits.data(), vocab));
        }
        trace.timings = session->timings();
        return trace;
    }

    // Five beams with different prompts, then steps: each step keeps, per beam, a source beam
    // chosen from the logits (duplicates and permutations: the self cache's slots move) and its
    // best token; after `narrowAfter` steps the search continues with 3 beams.
    Trace beamSearch(bool graphs, int steps, int narrowAfter) {
        auto session = newSession(graphs, 5);
        const int vocab = m_model->config().nVocab;
        std::vector<std::vector<int>> beams;
        for (int b = 0; b < 5; ++b) {
            std::vector<int> tokens = kStart;
            for (int t = 0; t <= b; ++t) tokens.push_back(300 + 41 * b + t);
            beams.push_back(tokens);
        }
        Trace trace;
        std::vector<float> logits;
        decodeInto(*session, beams, trace, logits);
        for (int step = 0; step < steps; ++step) {
            const int count = step < narrowAfter ? 5 : 3;
            // Old beams ranked by their best logit; new beams continue ranks 0, 1, 0, 2, 1 (duplicates
            // and moves, as a beam search makes them).
            std::vector<int> order(beams.size());
            std::iota(order.begin(), order.end(), 0);
            std::vector<float> best(beams.size());
            for (size_t b = 0; b < beams.size(); ++b) {
                const float* row = &logits[b * size_t(vocab)];
                best[b] = row[argmax(row, vocab)];
            }
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return best[size_t(a)] > best[size_t(b)]; });
            const size_t rank[] = {0, 1, 0, 2, 1};
            std::vector<int> sources(static_cast<size_t>(count));
            for (int b = 0; b < count; ++b) sources[size_t(b)] = order[rank[b] % order.size()];
            std::vector<std::vector<int>> next;
            for (int b = 0; b < count; ++b) {
                const int s = sources[size_t(b)];
                next.push_back(beams[size_t(s)]);
                // The best token of the source, shifted per copy so duplicates diverge.
                next.back().push_back((argmax(&logits[size_t(s) * size_t(vocab)], vocab) + 7 * b) % vocab);
            }
            session->reorderBeams(sources);
            beams = next;
            decodeInto(*session, beams, trace, logits);
        }
        trace.timings = session->timings();
        return trace;
    }

    static void compareTraces(const Trace& on, const Trace& off) {
        QCOMPARE(on.rows, off.rows);
        QCOMPARE(on.logits.size(), off.logits.size());
        // Bit-identical: the replayed ops are the eager ones, reading this step's values.
        QVERIFY2(on.logits == off.logits, qPrintable(QString("logits differ, max relative %1")
                                                         .arg(test::relativeError(on.logits, off.logits))));
        QCOMPARE(off.timings.stepRecordings, 0);
        QCOMPARE(off.timings.stepReplays, 0);
    }

private slots:
    // ---- backend level ----

    void opsInsideRecordDoNotRun() {
        CpuBackend be(2);
        const int d = 8, vocab = 11, positions = 6;
        auto tokenTable = put(be, randomValues(size_t(vocab * d), 1));
        auto positionTable = put(be, randomValues(size_t(positions * d), 2));
        auto y = be.allocate(size_t(3 * d));
        auto ids = be.allocateIndices(6);
        const IndexView tokens(ids.get(), 0, 3), at(ids.get(), 3, 3);
        auto work = be.record([&] {
            QVERIFY(be.recording());
            be.embed(tokens, at, 3, BufferView(tokenTable.get()), BufferView(positionTable.get()), d,
                     BufferView(y.get()));
            be.gelu(BufferView(y.get()));
        });
        QVERIFY(!be.recording());
        QCOMPARE(work->operations(), size_t(2));
        // Nothing ran: y is still zero (and ids 0 would have given a non-zero embedding).
        QCOMPARE(get(be, *y), std::vector<float>(size_t(3 * d), 0.0f));

        const auto table = get(be, *tokenTable), posTable = get(be, *positionTable);
        for (const std::vector<int32_t>& values : {std::vector<int32_t>{1, 10, 3, 0, 5, 2},
                                                   std::vector<int32_t>{7, 7, 0, 4, 1, 0}}) {
            be.uploadIndices(IndexView(ids.get()), values);
            work->replay();
            const auto out = get(be, *y);
            for (int i = 0; i < 3; ++i) {
                for (int c = 0; c < d; ++c) {
                    const float e = table[size_t(values[size_t(i)] * d + c)] + posTable[size_t(values[size_t(3 + i)] * d + c)];
                    const float gelu = 0.5f * e * (1.0f + std::erf(e * 0.70710678118654752440f));
                    QCOMPARE(out[size_t(i * d + c)], gelu);
                }
            }
        }
    }

    void replayReadsTheCurrentOffsets() {
        CpuBackend be(2);
        const int heads = 2, headDim = 5, width = heads * headDim, capacity = 10, beams = 2;
        auto k = put(be, randomValues(size_t(beams * capacity * width), 3));  // cache [slot][capacity][width]
        auto v = put(be, randomValues(size_t(beams * capacity * width), 4));
        auto q = put(be, randomValues(size_t(beams * width), 5));
        auto newRows = put(be, randomValues(size_t(beams * width), 6));
        auto out = be.allocate(size_t(beams * width)), expected = be.allocate(size_t(beams * width));
        auto ids = be.allocateIndices(3 * beams);  // [positions][first cache rows][written rows]
        const IndexView positions(ids.get(), 0, beams), firstRows(ids.get(), beams, beams),
            writtenRows(ids.get(), 2 * beams, beams);
        const std::vector<RowCopy> writes = {{0, 0, 1}, {1, 0, 1}};
        const std::vector<AttentionBatch> stepBatches = {{0, 1, 0, 1}, {1, 1, 0, 1}};
        AttentionArgs args;
        args.q = BufferView(q.get());
        args.k = BufferView(k.get());
        args.v = BufferView(v.get());
        args.out = BufferView(out.get());
        args.qStride = args.kvStride = args.outStride = width;
        args.heads = heads;
        args.headDim = headDim;
        args.scale = 0.4f;
        args.causal = true;
        args.batches = stepBatches;
        args.keyRowOffsets = firstRows;
        args.keyCountOffsets = positions;
        args.maxKeys = capacity;  // a beam's slot
        auto work = be.record([&] {
            be.copyRows(BufferView(newRows.get()), width, BufferView(k.get()), width, width, writes, writtenRows);
            be.attention(args);
        });
        QCOMPARE(work->operations(), size_t(2));

        // Two steps with different slots and positions (beam 1 in slot 0 at position 7, beam 0
        // in slot 1 at position 2, ...): the same replay gives what eager static calls give.
        for (const std::vector<int32_t>& pos : {std::vector<int32_t>{3, 7}, std::vector<int32_t>{9, 0}}) {
            const std::vector<int32_t> slot = pos[0] == 3 ? std::vector<int32_t>{1, 0} : std::vector<int32_t>{0, 1};
            std::vector<int32_t> values(pos);
            for (int b = 0; b < beams; ++b) values.push_back(slot[size_t(b)] * capacity);
            for (int b = 0; b < beams; ++b) values.push_back(slot[size_t(b)] * capacity + pos[size_t(b)]);
            const auto kBefore = get(be, *k);
            be.uploadIndices(IndexView(ids.get()), values);
            work->replay();
            const auto kAfter = get(be, *k), newHost = get(be, *newRows);
            // The write landed at each beam's row, nothing else changed.
            auto kWant = kBefore;
            for (int b = 0; b < beams; ++b) {
                std::copy_n(newHost.begin() + b * width, width, kWant.begin() + values[size_t(2 * beams + b)] * width);
            }
            QCOMPARE(kAfter, kWant);
            // Attention over [first row, + position + 1) per beam, as an eager call states it.
            std::vector<AttentionBatch> eager;
            for (int b = 0; b < beams; ++b) eager.push_back({b, 1, size_t(values[size_t(beams + b)]), pos[size_t(b)] + 1});
            AttentionArgs plain = args;
            plain.out = BufferView(expected.get());
            plain.batches = eager;
            plain.keyRowOffsets = {};
            plain.keyCountOffsets = {};
            be.attention(plain);
            QCOMPARE(get(be, *out), get(be, *expected));
        }
        // Offsets that leave the cache: refused when the work runs.
        be.uploadIndices(IndexView(ids.get()), std::vector<int32_t>{3, 7, 0, 10, 0, 2 * capacity});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, work->replay());
        be.uploadIndices(IndexView(ids.get()), std::vector<int32_t>{3, capacity, 0, capacity, 0, capacity});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, work->replay());
        // Inside k and v but past a slot (13 keys from row 0, maxKeys 10): refused as well.
        be.uploadIndices(IndexView(ids.get()), std::vector<int32_t>{12, 0, 0, capacity, 12, capacity});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, work->replay());
    }

    void badIdsAreRefusedWhenTheWorkRuns() {
        CpuBackend be(1);
        const int d = 4;
        auto table = put(be, randomValues(size_t(5 * d), 7)), positions = put(be, randomValues(size_t(3 * d), 8));
        auto y = be.allocate(size_t(d));
        auto ids = be.allocateIndices(2);
        auto work = be.record([&] {
            be.embed(IndexView(ids.get(), 0, 1), IndexView(ids.get(), 1, 1), 1, BufferView(table.get()),
                     BufferView(positions.get()), d, BufferView(y.get()));
        });
        be.uploadIndices(IndexView(ids.get()), std::vector<int32_t>{4, 2});
        work->replay();
        be.uploadIndices(IndexView(ids.get()), std::vector<int32_t>{5, 2});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, work->replay());
        be.uploadIndices(IndexView(ids.get()), std::vector<int32_t>{0, -1});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, work->replay());
        // Index views are checked when the op is called: too short, or of no buffer.
        QVERIFY_THROWS_EXCEPTION(std::logic_error, be.embed(IndexView(ids.get(), 0, 1), IndexView(ids.get(), 1, 1), 2,
                                                            BufferView(table.get()), BufferView(positions.get()), d,
                                                            BufferView(y.get())));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, be.embed(IndexView(), IndexView(ids.get(), 1, 1), 1,
                                                            BufferView(table.get()), BufferView(positions.get()), d,
                                                            BufferView(y.get())));
    }

    void forbiddenCallsThrowAndLeaveTheBackendUsable() {
        CpuBackend be(2);
        auto x = put(be, {-1.0f, 0.5f, 2.0f});
        auto ids = be.allocateIndices(2);
        std::vector<float> host(3);
        const std::vector<int32_t> values = {1, 2};
        uint16_t half[2] = {0x3c00, 0x4000};
        const TensorView weight{"w", DType::F16, {2}, reinterpret_cast<const std::byte*>(half), sizeof half};
        auto previous = be.record([&] { be.gelu(BufferView(x.get())); });
        const std::vector<std::pair<const char*, std::function<void()>>> forbidden = {
            {"allocate", [&] { be.allocate(4); }},
            {"allocateIndices", [&] { be.allocateIndices(4); }},
            {"loadWeight", [&] { be.loadWeight(weight); }},
            {"upload", [&] { be.upload(BufferView(x.get()), host.data(), 3); }},
            {"uploadIndices", [&] { be.uploadIndices(IndexView(ids.get()), values); }},
            {"download", [&] { be.download(BufferView(x.get()), host.data(), 3); }},
            {"synchronize", [&] { be.synchronize(); }},
            {"replay", [&] { previous->replay(); }},
            {"record inside record", [&] { be.record([] {}); }},
        };
        for (const auto& [name, call] : forbidden) {
            bool threw = false;
            try {
                be.record([&] {
                    be.gelu(BufferView(x.get()));  // recorded, then dropped with the recording
                    call();
                });
            } catch (const std::logic_error& e) {
                threw = true;
                qInfo("%s: %s", name, e.what());
            }
            QVERIFY2(threw, name);
            QVERIFY2(!be.recording(), name);
        }
        // An op's own check ends the recording the same way.
        QVERIFY_THROWS_EXCEPTION(std::logic_error, be.record([&] { be.add(BufferView(x.get()), BufferView(x.get(), 0, 2)); }));
        QVERIFY(!be.recording());
        // None of the abandoned recordings ran, and the backend works eagerly again.
        QCOMPARE(get(be, *x), (std::vector<float>{-1.0f, 0.5f, 2.0f}));
        be.add(BufferView(x.get()), BufferView(x.get()));
        QCOMPARE(get(be, *x), (std::vector<float>{-2.0f, 1.0f, 4.0f}));
        auto again = be.record([&] { be.add(BufferView(x.get()), BufferView(x.get())); });
        again->replay();
        QCOMPARE(get(be, *x), (std::vector<float>{-4.0f, 2.0f, 8.0f}));
    }

    // ---- session level ----

    void greedyStepsReplay() {
        const int calls = 40;
        const Trace off = greedy(false, calls, true), on = greedy(true, calls, true);
        compareTraces(on, off);
        // Call 1 runs the prompt; call 2 is the first step (eager), call 3 records, the rest replay.
        QCOMPARE(on.timings.stepRecordings, 1);
        QCOMPARE(on.timings.stepReplays, calls - 2);
        QCOMPARE(on.timings.decodeCalls, calls);
        // The recording holds the step's ops, no more: per layer 3 layer norms, 5 products (q, k
        // and v in one pass; the cross query; the two output projections; fc1 with its GELU in
        // one pass; fc2), 2 K/V cache writes and 2 attentions; then embed, last-row copy, final
        // norm and logits. (bench reports this count; on CUDA it is the graph's node count per
        // token, where the single-row products also run as one launch each.)
        QCOMPARE(on.timings.stepOperations, size_t(13 * m_model->config().nTextLayer + 4));
        QCOMPARE(off.timings.stepOperations, size_t(0));
    }

    void crossCacheOff() {
        const int calls = 12;
        const Trace off = greedy(false, calls, false), on = greedy(true, calls, false);
        compareTraces(on, off);
        QCOMPARE(on.timings.stepRecordings, 1);
        QCOMPARE(on.timings.stepReplays, calls - 2);
    }

    void beamSearchWithReorders() {
        const int steps = 14, narrowAfter = 8;
        const Trace off = beamSearch(false, steps, narrowAfter), on = beamSearch(true, steps, narrowAfter);
        compareTraces(on, off);
        // Every call after the first is a step: 5 beams for 8 steps, then 3 beams for 6. Each beam
        // count runs once eagerly, is recorded at its second step and replayed from then on.
        for (size_t call = 1; call < on.rows.size(); ++call) QCOMPARE(on.rows[call], call <= size_t(narrowAfter) ? 5 : 3);
        QCOMPARE(on.timings.stepRecordings, 2);
        QCOMPARE(on.timings.stepReplays, (narrowAfter - 1) + (steps - narrowAfter - 1));
    }

    void switchesFlippedMidway() {
        // Calls 0-9: both caches; 10-19: cross cache off; 20-29: on again; 30-34: self cache off
        // (no steps); 35-44: self cache on again (call 35 re-runs the whole sequence).
        auto flip = [](InferenceSession& s, int call) {
            if (call == 10) s.setCrossAttentionCache(false);
            if (call == 20) s.setCrossAttentionCache(true);
            if (call == 30) s.setSelfAttentionCache(false);
            if (call == 35) s.setSelfAttentionCache(true);
        };
        const int calls = 45;
        const Trace off = greedy(false, calls, true, flip), on = greedy(true, calls, true, flip);
        compareTraces(on, off);
        QCOMPARE(on.rows[35], int(kStart.size()) + 35);  // the sequence re-run after the self cache came back
        // A recording per phase with steps (the flips reallocate buffers or change the shape):
        // phases 0-9 (prompt, eager, 8 replays), 10-19 and 20-29 (eager, 9 replays),
        // 35-44 (full re-run, eager, 8 replays).
        QCOMPARE(on.timings.stepRecordings, 4);
        QCOMPARE(on.timings.stepReplays, 8 + 9 + 9 + 8);
    }

    void stepGraphsSwitchedMidway() {
        // Calls 0-9: graphs on (prompt, eager, record + 8 replays); 10-19: off (eager, the
        // recordings dropped); 20-29: on again (eager, record + 9 replays).
        auto flip = [](InferenceSession& s, int call) {
            if (call == 10) {
                s.setStepGraphs(false);
                QVERIFY(!s.stepGraphs());
            }
            if (call == 20) {
                s.setStepGraphs(true);
                QVERIFY(s.stepGraphs());
            }
        };
        const int calls = 30;
        const Trace off = greedy(false, calls, true), on = greedy(true, calls, true, flip);
        compareTraces(on, off);
        QCOMPARE(on.timings.stepRecordings, 2);
        QCOMPARE(on.timings.stepReplays, 8 + 9);
        // Turned on in a session made without them: the same counts from call 20 on.
        auto later = [](InferenceSession& s, int call) {
            if (call == 20) s.setStepGraphs(true);
        };
        const Trace late = greedy(false, calls, true, later);
        QCOMPARE(late.logits, off.logits);
        QCOMPARE(late.timings.stepRecordings, 1);
        QCOMPARE(late.timings.stepReplays, 9);
    }

    void growingBuffersRerecord() {
        // A longer sequence after a reset grows the decoder's row buffers: recordings made
        // before refer to freed memory and are made again.
        auto session = newSession(true, 1);
        auto reference = newSession(false, 1);
        const int vocab = m_model->config().nVocab;
        for (InferenceSession* s : {session.get(), reference.get()}) {
            Trace trace;
            std::vector<float> logits;
            std::vector<int> tokens = kStart;
            for (int call = 0; call < 5; ++call) {
                decodeInto(*s, {tokens}, trace, logits);
                tokens.push_back(argmax(logits.data(), vocab));
            }
            s->resetDecoder();
            tokens = kStart;
            for (int t = 0; t < 60; ++t) tokens.push_back(1000 + 17 * t);
            for (int call = 0; call < 5; ++call) {
                decodeInto(*s, {tokens}, trace, logits);
                tokens.push_back(argmax(logits.data(), vocab));
            }
            trace.timings = s->timings();
            if (s == session.get()) {
                // 5 calls: prompt, eager, record + replay, replay, replay; then a 63-row pass
                // (buffers grow), eager, record + replay, replay, replay.
                QCOMPARE(trace.timings.stepRecordings, 2);
                QCOMPARE(trace.timings.stepReplays, 6);
                m_grownOn = trace;
            } else {
                compareTraces(m_grownOn, trace);
            }
        }
    }

    void selfCacheOffRecordsNothing() {
        SessionOptions options;
        options.maxBeams = 1;
        options.selfAttentionCache = false;
        auto session = InferenceSession::create(m_model, m_backend, options);
        QVERIFY(session.ok());
        QVERIFY(session.value()->encode(m_mel).ok());
        QVERIFY(test::greedyDecode(*session.value(), kStart, 6).ok());
        QCOMPARE(session.value()->timings().stepRecordings, 0);
        QCOMPARE(session.value()->timings().stepReplays, 0);
    }

private:
    Trace m_grownOn;
};

QTEST_APPLESS_MAIN(TestStepRecording)
#include "tst_step_recording.moc"
