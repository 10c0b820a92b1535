// hearsay-decode: decodes one audio file with the in-process decoder (AudioBlockDecoder) and
// streams its 16 kHz mono blocks to the parent on fd 3 (core/audio/decoder_protocol.h), so that
// a decoder crash on a hostile file ends this process, not the application. No Qt.
//
//   hearsay-decode [--quality best|medium|fastest] [--memory-limit-mib N] -- FILE
//
// Started by DecoderProcess (core/audio/decoder_process.h), never by hand. For tests only,
// HEARSAY_DECODER_FAULT=crash|hang|oom|garbage misbehaves after the first block.
#include "core/audio/audio_block_decoder.h"
#include "core/audio/decoder_protocol.h"
#ifdef HEARSAY_HAVE_FFMPEG
#include "core/audio/ffmpeg_decoder.h"
#endif

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEARSAY_DECODE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define HEARSAY_DECODE_SANITIZED 1
#endif
#endif

using namespace hearsay;
namespace protocol = hearsay::decoder_protocol;

namespace {

// Writes all of `bytes` to the stream, then empties it; false when the parent is gone.
bool send(std::vector<uint8_t>& bytes) {
    size_t at = 0;
    while (at < bytes.size()) {
        const ssize_t n = ::write(protocol::kStreamFd, bytes.data() + at, bytes.size() - at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        at += size_t(n);
    }
    bytes.clear();
    return true;
}

// No core files; an address-space ceiling, so that a decoder that allocates without bound
// fails an allocation instead of taking the machine's memory. Sanitizers reserve terabytes of
// address space for their shadow memory: there the ceiling is skipped.
void limitResources(unsigned long long memoryLimitMiB) {
    const rlimit noCore{0, 0};
    setrlimit(RLIMIT_CORE, &noCore);
#ifndef HEARSAY_DECODE_SANITIZED
    if (memoryLimitMiB > 0) {
        const rlim_t bytes = rlim_t(memoryLimitMiB) << 20;
        const rlimit memory{bytes, bytes};
        setrlimit(RLIMIT_AS, &memory);
    }
#else
    (void)memoryLimitMiB;
#endif
}

// The test-only faults, acted on after the first block has been sent. Returns normally only
// for an unknown name (ignored).
void misbehave(const std::string& fault, std::vector<uint8_t>& out) {
    if (fault == "crash") {
        signal(SIGSEGV, SIG_DFL);  // a sanitizer's handler would turn the signal into an exit
        raise(SIGSEGV);
    } else if (fault == "hang") {
        while (true) pause();
    } else if (fault == "oom") {
        // Address space only (never touched): the ceiling makes an allocation fail long before
        // 64 GiB; without the ceiling this says so instead of pretending.
        std::vector<std::unique_ptr<char[]>> hoard;
        for (int i = 0; i < 256; ++i) hoard.emplace_back(new char[size_t(256) << 20]);
        protocol::appendError(out, "fault 'oom': 64 GiB allocated, no memory limit in force");
        send(out);
        _exit(0);
    } else if (fault == "garbage") {
        const char text[] = "this is not the decoder protocol, and its length field is huge";
        out.assign(text, text + sizeof(text));
        send(out);
        _exit(0);
    }
}

int usage(const char* why) {
    std::fprintf(stderr, "hearsay-decode: %s\nusage: hearsay-decode [--quality best|medium|fastest] "
                         "[--memory-limit-mib N] -- FILE (started by Hearsay, writes to fd 3)\n", why);
    return protocol::kExitUsage;
}

int decode(const std::string& file, Resampler::Quality quality) {
    std::vector<uint8_t> out;
    auto decoder = AudioBlockDecoder::open(file, quality);
    if (!decoder) {
        protocol::appendError(out, decoder.message());
        return send(out) ? 0 : protocol::kExitWriteFailed;
    }
    const AudioFileInfo& info = decoder->info();
    protocol::appendInfo(out, {info.sourceRate, info.sourceChannels, info.decoder, info.format});
    if (!send(out)) return protocol::kExitWriteFailed;

    const char* faultVariable = std::getenv("HEARSAY_DECODER_FAULT");
    const std::string fault = faultVariable ? faultVariable : "";
    std::vector<float> block;
    bool first = true;
    while (true) {
        auto more = decoder->next(block);
        if (!more) {
            protocol::appendError(out, more.message());
            return send(out) ? 0 : protocol::kExitWriteFailed;
        }
        if (!more.value()) break;
        for (size_t at = 0; at < block.size(); at += protocol::kMaxBlockSamples) {
            const size_t n = std::min(protocol::kMaxBlockSamples, block.size() - at);
            protocol::appendBlock(out, decoder->sourceFramesRead(), block.data() + at, n);
            if (!send(out)) return protocol::kExitWriteFailed;
        }
        if (first && !fault.empty()) misbehave(fault, out);
        first = false;
    }
    protocol::appendDone(out, decoder->sourceFramesRead(), decoder->samplesDelivered());
    return send(out) ? 0 : protocol::kExitWriteFailed;
}

} // namespace

int main(int argc, char** argv) {
#ifdef HEARSAY_HAVE_FFMPEG
    useFfmpegDecoder();  // the containers libsndfile does not read: decoded here, never in the application
#endif
    Resampler::Quality quality = Resampler::Quality::Best;
    unsigned long long memoryLimitMiB = 4096;
    std::string file;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--" && i + 2 == argc) {
            file = argv[i + 1];
            break;
        } else if (arg == "--quality" && i + 1 < argc) {
            const std::string q = argv[++i];
            if (q == "best") quality = Resampler::Quality::Best;
            else if (q == "medium") quality = Resampler::Quality::Medium;
            else if (q == "fastest") quality = Resampler::Quality::Fastest;
            else return usage("unknown quality");
        } else if (arg == "--memory-limit-mib" && i + 1 < argc) {
            char* end = nullptr;
            memoryLimitMiB = std::strtoull(argv[++i], &end, 10);
            if (!end || *end != '\0') return usage("--memory-limit-mib needs a number");
        } else {
            return usage(("unexpected argument '" + arg + "'").c_str());
        }
    }
    if (file.empty()) return usage("no file given");
    limitResources(memoryLimitMiB);
    try {
        return decode(file, quality);
    } catch (const std::bad_alloc&) {
        return protocol::kExitOutOfMemory;
    } catch (const std::length_error&) {  // a vector asked for more than it can hold
        return protocol::kExitOutOfMemory;
    }
}
