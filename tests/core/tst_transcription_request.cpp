// TranscriptionRequest::validate() (core/engine), the one mapping of the CLI's options and the
// GUI's settings into decoding options: beam size 1 is greedy, a beam size or a step out of range
// is refused with a message, an English-only model drops a requested language (and the list to
// detect among), and the session's beams cover beam search and best-of.
#include "core/backend/backend_error.h"
#include "core/engine/transcription_request.h"
#include "core/model/whisper_config.h"

#include <QtTest>

using namespace hearsay;

namespace {

WhisperConfig englishOnly() {
    auto config = WhisperConfig::fromName("tiny.en");
    return config ? config.value() : WhisperConfig{};
}

WhisperConfig multilingual() {
    auto config = WhisperConfig::fromName("tiny");
    return config ? config.value() : WhisperConfig{};
}

} // namespace

class TestTranscriptionRequest : public QObject {
    Q_OBJECT
private slots:
    void theModelsAreWhatTheyClaim() {
        QVERIFY(!englishOnly().isMultilingual());
        QVERIFY(multilingual().isMultilingual());
    }

    void beamOneIsGreedyAndMoreIsBeamSearch() {
        TranscriptionRequest request;
        request.beamSize = 1;
        auto greedy = request.validate(multilingual());
        QVERIFY2(greedy.ok(), greedy.ok() ? "" : greedy.message().c_str());
        QCOMPARE(greedy->decoding.beamSize, 0);
        request.beamSize = 2;
        QCOMPARE(request.validate(multilingual())->decoding.beamSize, 2);
        request.beamSize = TranscriptionRequest::kMaxBeamSize;
        QCOMPARE(request.validate(multilingual())->decoding.beamSize, 16);
    }

    void beamOutOfRangeIsRefused() {
        for (int beam : {0, -1, TranscriptionRequest::kMaxBeamSize + 1, 1000000}) {
            TranscriptionRequest request;
            request.beamSize = beam;
            auto result = request.validate(multilingual());
            QVERIFY(!result.ok());
            QCOMPARE(result.kind(), ErrorKind::BadInput);
            QVERIFY2(result.message().find("beam size must be between 1 and 16") != std::string::npos, result.message().c_str());
        }
        TranscriptionRequest request;
        request.bestOf = TranscriptionRequest::kMaxBestOf + 1;
        QVERIFY(!request.validate(multilingual()).ok());
        request.bestOf = -1;
        QVERIFY(!request.validate(multilingual()).ok());
    }

    void englishOnlyModelsDropTheLanguage() {
        TranscriptionRequest request;
        request.language = "de";
        request.task = DecodingTaskKind::Translate;
        auto english = request.validate(englishOnly());
        QVERIFY(english.ok());
        QCOMPARE(english->decoding.language, std::string());
        QVERIFY(english->decoding.task == DecodingTaskKind::Translate);
        auto many = request.validate(multilingual());
        QCOMPARE(many->decoding.language, std::string("de"));

        // Detection among a list: kept on a multilingual model, dropped on an English-only one.
        request.language = "auto";
        request.detectAmong = {"en", "de"};
        QCOMPARE(request.validate(multilingual())->decoding.language, std::string());
        QCOMPARE(request.validate(multilingual())->decoding.detectAmong, (std::vector<std::string>{"en", "de"}));
        QVERIFY(request.validate(englishOnly())->decoding.detectAmong.empty());
        // A language given: nothing to detect.
        request.language = "fr";
        QVERIFY(request.validate(multilingual())->decoding.detectAmong.empty());
    }

    void unknownLanguagesAreRefused() {
        TranscriptionRequest request;
        request.language = "klingon";
        auto result = request.validate(englishOnly());  // refused even where it would be dropped
        QVERIFY(!result.ok());
        QVERIFY2(result.message().find("klingon") != std::string::npos, result.message().c_str());
        request.language.clear();
        request.detectAmong = {"en", "xx"};
        QVERIFY(!request.validate(multilingual()).ok());
    }

    void stepRangeBounds() {
        TranscriptionRequest request;
        for (double step : {TranscriptionRequest::kMinStepSeconds, 1.0, TranscriptionRequest::kMaxStepSeconds}) {
            request.stepSeconds = step;
            auto result = request.validate(multilingual());
            QVERIFY(result.ok());
            QCOMPARE(result->stepSeconds, step);
        }
        for (double step : {0.0, 0.04, 10.01, -1.0, std::nan("")}) {
            request.stepSeconds = step;
            auto result = request.validate(multilingual());
            QVERIFY(!result.ok());
            QCOMPARE(QString::fromStdString(result.message()), QString("the streaming step must be between 0.05 and 10 s"));
        }
    }

    void maxBeamsCoverBeamSearchAndBestOf() {
        TranscriptionRequest request;
        request.beamSize = 1;
        request.bestOf = 5;
        QCOMPARE(request.validate(multilingual())->maxBeams, 5);
        request.beamSize = 8;
        QCOMPARE(request.validate(multilingual())->maxBeams, 8);
        request.beamSize = 3;
        QCOMPARE(request.validate(multilingual())->maxBeams, 5);
        request.beamSize = 1;
        request.bestOf = 0;  // streaming: one sample at a fallback temperature
        QCOMPARE(request.validate(multilingual())->maxBeams, 1);
        QCOMPARE(request.validate(multilingual())->decoding.bestOf, 0);
    }

    // The reference's temperatures by default; none after 0 with the increment 0, and then best-of
    // needs no beams of its own. An increment outside 0..1 is refused.
    void fallbackTemperatures() {
        TranscriptionRequest request;
        request.beamSize = 3;
        auto fallback = request.validate(multilingual());
        QVERIFY(fallback.ok());
        QCOMPARE(fallback->temperatures, (std::vector<float>{0.0f, 0.2f, 0.4f, 0.6f, 0.8f, 1.0f}));
        QCOMPARE(fallback->maxBeams, 5);
        request.temperatureIncrement = 0.0;
        auto none = request.validate(multilingual());
        QVERIFY(none.ok());
        QCOMPARE(none->temperatures, std::vector<float>{0.0f});
        QCOMPARE(none->maxBeams, 3);
        for (double bad : {-0.1, 1.5, std::nan("")}) {
            request.temperatureIncrement = bad;
            auto refused = request.validate(multilingual());
            QVERIFY(!refused.ok());
            QVERIFY2(refused.message().find("temperature increment") != std::string::npos, refused.message().c_str());
        }
    }

    void theCpuMayDoWhatAnotherBackendCouldNot() {
        QVERIFY(cpuBackendMayHelp(ErrorKind::Device, BackendKind::Cuda));
        QVERIFY(cpuBackendMayHelp(ErrorKind::OutOfMemory, BackendKind::Cuda));
        QVERIFY(cpuBackendMayHelp(ErrorKind::Device, BackendKind::Auto));  // a backend that did not start
        QVERIFY(!cpuBackendMayHelp(ErrorKind::OutOfMemory, BackendKind::Cpu));
        QVERIFY(!cpuBackendMayHelp(ErrorKind::BadInput, BackendKind::Cuda));
        QVERIFY(!cpuBackendMayHelp(ErrorKind::Cancelled, BackendKind::Cuda));
    }
};

QTEST_APPLESS_MAIN(TestTranscriptionRequest)
#include "tst_transcription_request.moc"
