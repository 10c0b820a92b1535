// hearsay-cli audio: the audio input layer by hand: list input devices, record from one,
// play a file as simulated live input, decode a file block by block (with its peak memory).
// Live transcription is `hearsay-cli stream`; this command only exercises the audio side.
#include "app/cli/command.h"
#include "app/cli/input_devices.h"

#ifdef HEARSAY_HAVE_AUDIO

#include "core/audio/audio_file_reader.h"
#include "core/audio/audio_writer.h"
#include "core/audio/capture_device.h"
#include "core/audio/simulated_live_source.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace hearsay::cli {
namespace {

void declareAudio(CLI::App& c) {
    c.footer("Exercises Hearsay's audio input (core/audio) without a model.\n"
             "  audio devices                  list the input devices (the default one is marked)\n"
             "  audio record [--device ID] [--seconds S] [--output FILE.wav]\n"
             "                                 capture from a device (default: the default input) for S seconds\n"
             "                                 (default 5), showing the level; the 16 kHz mono audio goes to FILE\n"
             "  audio replay FILE [--speed X] [--output FILE.wav]\n"
             "                                 play FILE as simulated live input at X times real time (default 1;\n"
             "                                 0 = as fast as possible) through the same ring buffer\n"
             "  audio decode FILE [--in-process]\n"
             "                                 decode FILE block by block, in the decoder helper process (or in\n"
             "                                 this one); prints samples, time and the peak memory of both");
    addPositional(c, "ACTION", "devices, record, replay or decode")
        ->check(CLI::IsMember({"devices", "record", "replay", "decode"}));
    addPositional(c, "FILE", "the audio file (replay, decode)");
    addText(c, "--device", "ID", "record: this input device (default: the default input)");
    addNumber(c, "--seconds", 0.001, 86400.0, "record: seconds to capture (default 5)");
    addText(c, "--output", "FILE.wav", "record, replay: write the 16 kHz mono audio there");
    addNumber(c, "--speed", 0.0, 1000.0, "replay: times real time (default 1; 0 = as fast as possible)");
    addFlag(c, "--in-process", "decode: in this process instead of the decoder helper");
}

double peakRssMiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// A running process's peak RSS so far (VmHWM). Not getrusage(RUSAGE_CHILDREN): posix_spawn's
// child shares this process's memory until it execs, and its ru_maxrss counts that.
double peakRssMiB(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;  // kB
    }
    return 0.0;
}

const char* stateName(SourceState state) {
    switch (state) {
    case SourceState::Idle: return "idle";
    case SourceState::Running: return "running";
    case SourceState::Finished: return "finished";
    case SourceState::Failed: return "failed";
    }
    return "?";
}

// Reads a source until it ends (or `seconds` pass, for a device), printing the level.
int consume(AudioSource& source, double seconds, const std::string& output) {
    using Clock = std::chrono::steady_clock;
    if (auto started = source.start(); !started) {
        std::fprintf(stderr, "hearsay-cli audio: %s\n", started.message().c_str());
        return 1;
    }
    std::fprintf(stderr, "%s\n", source.description().c_str());
    const auto begin = Clock::now();
    auto lastPrint = begin;
    std::vector<float> all;
    std::vector<float> block(16000);
    bool stopped = false;
    while (!source.atEnd()) {
        source.waitForData(std::chrono::milliseconds(100));
        const size_t got = source.read(block);
        if (!output.empty()) all.insert(all.end(), block.begin(), block.begin() + long(got));
        const auto now = Clock::now();
        if (now - lastPrint > std::chrono::milliseconds(250)) {
            lastPrint = now;
            const InputLevel level = source.level();
            std::fprintf(stderr, "\r%7.2f s  level %6.1f dBFS rms, %6.1f dBFS peak   ",
                         double(source.counters().readSamples) / AudioSource::kSampleRate, InputLevel::toDb(level.rms),
                         InputLevel::toDb(level.peak));
        }
        if (!stopped && seconds > 0 && std::chrono::duration<double>(now - begin).count() >= seconds) {
            source.stop();
            stopped = true;
        }
    }
    const SourceStatus status = source.status();
    const SourceCounters c = source.counters();
    std::fprintf(stderr, "\n%s%s%s: %.2f s read (%llu samples at 16 kHz), %llu captured, %llu overflow events, "
                         "%llu samples dropped, %llu device overruns\n",
                 stateName(status.state), status.message.empty() ? "" : " — ", status.message.c_str(),
                 double(c.readSamples) / AudioSource::kSampleRate, (unsigned long long)c.readSamples,
                 (unsigned long long)c.capturedSamples, (unsigned long long)c.overflowEvents,
                 (unsigned long long)c.droppedSamples, (unsigned long long)c.deviceOverruns);
    if (!output.empty()) {
        auto written = writeAudioFile(output, all.data(), all.size(), AudioSource::kSampleRate, 1, AudioFileFormat::Wav16);
        if (!written) {
            std::fprintf(stderr, "hearsay-cli audio: %s\n", written.message().c_str());
            return 1;
        }
        std::fprintf(stderr, "wrote %s\n", output.c_str());
    }
    return status.state == SourceState::Failed ? 1 : 0;
}

int decodeBlocks(const std::string& path, bool inProcess) {
    const auto begin = std::chrono::steady_clock::now();
    AudioDecodeOptions options;
    options.isolation = inProcess ? DecodeIsolation::InProcess : DecodeIsolation::Auto;
    auto decoder = AudioFileReader::open(path, options);
    if (!decoder) {
        std::fprintf(stderr, "hearsay-cli audio: %s\n", decoder.message().c_str());
        return 1;
    }
    std::vector<float> block;
    size_t blocks = 0, largest = 0;
    double sumSquares = 0.0;
    double helperPeak = 0.0;  // sampled every 64 blocks: the helper's memory is flat after its start
    while (true) {
        if (blocks % 64 == 0 && decoder->process() && decoder->process()->pid() > 0) {
            helperPeak = std::max(helperPeak, peakRssMiB(decoder->process()->pid()));
        }
        auto more = decoder->next(block);
        if (!more) {
            std::fprintf(stderr, "hearsay-cli audio: %s\n", more.message().c_str());
            return 1;
        }
        if (!more.value()) break;
        ++blocks;
        largest = std::max(largest, block.size());
        for (float s : block) sumSquares += double(s) * double(s);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    const auto& info = decoder->info();
    const double samples = double(decoder->samplesDelivered());
    std::printf("%s: %s, %s, %d Hz, %d channels\n", path.c_str(), info.decoder.c_str(), info.format.c_str(),
                info.sourceRate, info.sourceChannels);
    std::printf("%.0f samples at 16 kHz (%.1f s of audio) in %zu blocks (largest %zu), rms %.4f\n", samples,
                samples / AudioSource::kSampleRate, blocks, largest, samples > 0 ? std::sqrt(sumSquares / samples) : 0.0);
    const bool helper = decoder->process() != nullptr;
    std::printf("decoded in %.2f s (%.0fx real time) %s; peak RSS %.1f MiB", seconds,
                samples / AudioSource::kSampleRate / std::max(seconds, 1e-9),
                helper ? "through the helper" : "in this process", peakRssMiB());
    if (helper) std::printf(", helper %.1f MiB", helperPeak);
    std::printf("\n");
    return 0;
}

int runAudio(const Options& options) {
    const auto& positional = options.positional();
    if (positional.empty()) {
        std::fprintf(stderr, "hearsay-cli audio: give devices, record, replay or decode (see --help)\n");
        return 2;
    }
    const std::string& action = positional[0];
    const std::string output = options.value("output", "");
    if (action == "devices") return printInputDevices("audio");
    if (action == "record") {
        auto seconds = options.doubleValue("seconds", 5.0);
        if (!seconds || !(seconds.value() > 0)) {
            std::fprintf(stderr, "hearsay-cli audio: --seconds needs a positive number\n");
            return 2;
        }
        CaptureOptions capture;
        capture.device = options.value("device", "");
        auto device = CaptureDevice::open(capture);
        if (!device) {
            std::fprintf(stderr, "hearsay-cli audio: %s\n", device.message().c_str());
            return 1;
        }
        return consume(*device.value(), seconds.value(), output);
    }
    if (action == "replay" || action == "decode") {
        if (positional.size() != 2) {
            std::fprintf(stderr, "hearsay-cli audio %s: give one FILE\n", action.c_str());
            return 2;
        }
        if (action == "decode") return decodeBlocks(positional[1], options.has("in-process"));
        auto speed = options.doubleValue("speed", 1.0);
        if (!speed) {
            std::fprintf(stderr, "hearsay-cli audio: %s\n", speed.message().c_str());
            return 2;
        }
        SimulatedLiveOptions live;
        live.speed = speed.value();
        auto source = SimulatedLiveSource::open(positional[1], live);
        if (!source) {
            std::fprintf(stderr, "hearsay-cli audio: %s\n", source.message().c_str());
            return 1;
        }
        return consume(*source.value(), 0.0, output);
    }
    std::fprintf(stderr, "hearsay-cli audio: unknown action '%s' (see --help)\n", action.c_str());
    return 2;
}

} // namespace

HEARSAY_CLI_COMMAND(audio, "audio", "audio input by hand: list devices, record, replay a file live, decode in blocks",
                    declareAudio, runAudio);

} // namespace hearsay::cli

#endif  // HEARSAY_HAVE_AUDIO
