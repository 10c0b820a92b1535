// AudioFileReader: finds the decoder helper and forwards to it, or to the in-process decoder.
#include "core/audio/audio_file_reader.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <system_error>

namespace hearsay {
namespace {

constexpr const char* kHelperName = "hearsay-decode";

bool isExecutableFile(const std::filesystem::path& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

void warnInProcessOnce() {
    static std::once_flag once;
    std::call_once(once, [] {
        std::fprintf(stderr, "hearsay: warning: no %s found (next to the program, in ../libexec/hearsay, or "
                             "$HEARSAY_DECODER); audio files are decoded in this process\n", kHelperName);
    });
}

} // namespace

Result<DecoderHelperLocation> findDecoderHelper() {
    if (const char* variable = std::getenv("HEARSAY_DECODER"); variable && *variable) {
        const std::string value = variable;
        if (value == "in-process") return DecoderHelperLocation{{}, true};
        if (!isExecutableFile(value)) {
            return makeError("the audio decoder helper '" + value + "' (HEARSAY_DECODER) is not an executable file");
        }
        return DecoderHelperLocation{value, false};
    }
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return DecoderHelperLocation{};
    const auto dir = self.parent_path();
    for (const auto& candidate : {dir / kHelperName, dir / ".." / "libexec" / "hearsay" / kHelperName}) {
        if (isExecutableFile(candidate)) return DecoderHelperLocation{candidate.lexically_normal(), false};
    }
    return DecoderHelperLocation{};
}

AudioFileReader::AudioFileReader(AudioFileReader&&) noexcept = default;
AudioFileReader& AudioFileReader::operator=(AudioFileReader&&) noexcept = default;
AudioFileReader::~AudioFileReader() = default;

Result<AudioFileReader> AudioFileReader::open(const std::filesystem::path& path, const AudioDecodeOptions& options) {
    std::filesystem::path helper = options.helper;
    if (options.isolation != DecodeIsolation::InProcess && helper.empty()) {
        auto found = findDecoderHelper();
        if (!found) return found.error();
        helper = found->path;
        if (helper.empty() && options.isolation == DecodeIsolation::Helper) {
            return makeError("cannot decode audio file '" + path.string() + "': " +
                             (found->turnedOff ? "the decoder helper is turned off (HEARSAY_DECODER=in-process)"
                                               : std::string("no ") + kHelperName + " found"));
        }
        if (helper.empty() && !found->turnedOff) warnInProcessOnce();
    }
    AudioFileReader reader;
    if (options.isolation == DecodeIsolation::InProcess || helper.empty()) {
        auto decoder = AudioBlockDecoder::open(path, options.quality);
        if (!decoder) return decoder.error();
        reader.m_inProcess = std::make_unique<AudioBlockDecoder>(std::move(decoder).value());
        return reader;
    }
    DecoderProcessOptions process;
    process.helper = helper;
    process.quality = options.quality;
    process.stallSeconds = options.stallSeconds;
    process.memoryLimitBytes = options.memoryLimitBytes;
    auto decoder = DecoderProcess::open(path, process);
    if (!decoder) return decoder.error();
    reader.m_process = std::make_unique<DecoderProcess>(std::move(decoder).value());
    return reader;
}

Result<bool> AudioFileReader::next(std::vector<float>& block) {
    return m_process ? m_process->next(block) : m_inProcess->next(block);
}

Result<void> AudioFileReader::rewind() { return m_process ? m_process->rewind() : m_inProcess->rewind(); }

const AudioFileInfo& AudioFileReader::info() const { return m_process ? m_process->info() : m_inProcess->info(); }

const std::filesystem::path& AudioFileReader::path() const {
    return m_process ? m_process->path() : m_inProcess->path();
}

uint64_t AudioFileReader::sourceFramesRead() const {
    return m_process ? m_process->sourceFramesRead() : m_inProcess->sourceFramesRead();
}

uint64_t AudioFileReader::samplesDelivered() const {
    return m_process ? m_process->samplesDelivered() : m_inProcess->samplesDelivered();
}

} // namespace hearsay
