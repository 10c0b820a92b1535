// FFmpeg reading, block by block: demux, decode the best audio stream, convert to interleaved
// float at the stream's own rate and channel count (mixing and resampling happen in one place
// for all decoders, in audio_block_decoder.cpp).
#include "core/audio/ffmpeg_decoder.h"

#ifdef HEARSAY_HAVE_FFMPEG

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
}

#include <mutex>
#include <vector>

namespace hearsay {
namespace {

std::string avError(int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof(text));
    return text;
}

struct FormatCloser {
    void operator()(AVFormatContext* ctx) const { avformat_close_input(&ctx); }
};
struct CodecCloser {
    void operator()(AVCodecContext* ctx) const { avcodec_free_context(&ctx); }
};
struct SwrCloser {
    void operator()(SwrContext* ctx) const { swr_free(&ctx); }
};
struct PacketCloser {
    void operator()(AVPacket* packet) const { av_packet_free(&packet); }
};
struct FrameCloser {
    void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};

// One open file: demuxes packets, decodes the chosen stream, converts each decoded frame to
// interleaved float. Each next() returns the output of at least one decoded frame.
class FfmpegReader final : public PcmReader {
public:
    FfmpegReader(std::unique_ptr<AVFormatContext, FormatCloser> format, std::unique_ptr<AVCodecContext, CodecCloser> codec,
                 std::unique_ptr<SwrContext, SwrCloser> swr, int stream, std::string description)
        : m_format(std::move(format)),
          m_codec(std::move(codec)),
          m_swr(std::move(swr)),
          m_stream(stream),
          m_channels(m_codec->ch_layout.nb_channels),
          m_rate(m_codec->sample_rate),
          m_description(std::move(description)),
          m_packet(av_packet_alloc()),
          m_frame(av_frame_alloc()) {}

    int sampleRate() const override { return m_rate; }
    int channels() const override { return m_channels; }
    const std::string& format() const override { return m_description; }

    Result<size_t> next(std::vector<float>& block) override {
        block.clear();
        if (!m_packet || !m_frame) return makeError("out of memory");
        while (!m_done) {
            // Whatever the decoder has ready first, then more input.
            const int got = avcodec_receive_frame(m_codec.get(), m_frame.get());
            if (got == 0) {
                auto converted = convert(m_frame.get(), block);
                av_frame_unref(m_frame.get());
                if (!converted) return converted.error();
                if (!block.empty()) return block.size() / size_t(m_channels);
                continue;
            }
            if (got == AVERROR_EOF) {
                m_done = true;
                break;
            }
            if (got != AVERROR(EAGAIN)) noteBadPacket(got);  // then on to the next packet
            if (m_flushing) {
                m_done = true;  // no more input to give it: nothing more will come
                break;
            }
            if (auto fed = feed(); !fed) return fed.error();
        }
        // The converter's remainder (nothing at equal rates, but cheap to ask), once.
        if (!m_swrFlushed) {
            m_swrFlushed = true;
            if (auto flushed = convert(nullptr, block); !flushed) return flushed.error();
            if (!block.empty()) return block.size() / size_t(m_channels);
        }
        if (m_framesOut == 0 && m_badPackets > 0) {
            return makeError("could not decode its " + std::string(m_codec->codec->name) + " audio: " + m_lastError);
        }
        return size_t(0);
    }

private:
    // Reads packets until one of our stream's is sent to the decoder (or the end is signalled).
    Result<void> feed() {
        while (true) {
            const int rc = av_read_frame(m_format.get(), m_packet.get());
            if (rc == AVERROR_EOF) {
                avcodec_send_packet(m_codec.get(), nullptr);  // flush: the decoder releases what it holds
                m_flushing = true;
                return {};
            }
            if (rc < 0) return makeError("read error: " + avError(rc));
            const bool ours = m_packet->stream_index == m_stream;
            int sent = 0;
            if (ours) sent = avcodec_send_packet(m_codec.get(), m_packet.get());
            av_packet_unref(m_packet.get());
            if (!ours) continue;
            // A damaged packet (common in real MP3/AAC files): skip it, but remember why.
            if (sent < 0 && sent != AVERROR_EOF) noteBadPacket(sent);
            return {};
        }
    }

    void noteBadPacket(int code) {
        ++m_badPackets;
        m_lastError = avError(code);
    }

    // Converts one decoded frame (nullptr: the converter's remainder) and appends it to block.
    Result<void> convert(const AVFrame* frame, std::vector<float>& block) {
        const int inFrames = frame ? frame->nb_samples : 0;
        const int capacity = swr_get_out_samples(m_swr.get(), inFrames);
        if (capacity < 0) return makeError("audio conversion failed: " + avError(capacity));
        if (capacity == 0) return {};
        const size_t at = block.size();
        block.resize(at + size_t(capacity) * size_t(m_channels));
        uint8_t* out[1] = {reinterpret_cast<uint8_t*>(block.data() + at)};
        const int frames = swr_convert(m_swr.get(), out, capacity,
                                       frame ? const_cast<const uint8_t**>(frame->extended_data) : nullptr, inFrames);
        if (frames < 0) {
            block.resize(at);
            return makeError("audio conversion failed: " + avError(frames));
        }
        block.resize(at + size_t(frames) * size_t(m_channels));
        m_framesOut += size_t(frames);
        return {};
    }

    std::unique_ptr<AVFormatContext, FormatCloser> m_format;
    std::unique_ptr<AVCodecContext, CodecCloser> m_codec;
    std::unique_ptr<SwrContext, SwrCloser> m_swr;
    int m_stream;
    int m_channels;
    int m_rate;
    std::string m_description;
    std::unique_ptr<AVPacket, PacketCloser> m_packet;
    std::unique_ptr<AVFrame, FrameCloser> m_frame;
    bool m_flushing = false;    // the end-of-stream packet was sent
    bool m_done = false;        // the decoder has nothing more
    bool m_swrFlushed = false;
    size_t m_framesOut = 0;
    int m_badPackets = 0;
    std::string m_lastError;
};

} // namespace

Result<std::unique_ptr<PcmReader>> openWithFfmpeg(const std::filesystem::path& path) {
    // FFmpeg logs to stderr; its errors reach the user through the returned Result instead.
    static std::once_flag quiet;
    std::call_once(quiet, [] { av_log_set_level(AV_LOG_QUIET); });

    AVFormatContext* rawFormat = nullptr;
    if (int rc = avformat_open_input(&rawFormat, path.c_str(), nullptr, nullptr); rc < 0) {
        return makeError(avError(rc));
    }
    std::unique_ptr<AVFormatContext, FormatCloser> format(rawFormat);
    if (int rc = avformat_find_stream_info(format.get(), nullptr); rc < 0) return makeError(avError(rc));

    const AVCodec* codec = nullptr;
    const int stream = av_find_best_stream(format.get(), AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0);
    if (stream == AVERROR_STREAM_NOT_FOUND) {
        return makeError(std::string("no audio stream in this ") + format->iformat->name + " file");
    }
    if (stream == AVERROR_DECODER_NOT_FOUND || !codec) return makeError("no decoder for its audio codec");
    if (stream < 0) return makeError(avError(stream));
    const AVCodecParameters* params = format->streams[stream]->codecpar;

    std::unique_ptr<AVCodecContext, CodecCloser> context(avcodec_alloc_context3(codec));
    if (!context) return makeError("out of memory");
    if (int rc = avcodec_parameters_to_context(context.get(), params); rc < 0) return makeError(avError(rc));
    if (int rc = avcodec_open2(context.get(), codec, nullptr); rc < 0) {
        return makeError(std::string("cannot open the ") + codec->name + " decoder: " + avError(rc));
    }
    const int rate = context->sample_rate;
    const int channels = context->ch_layout.nb_channels;
    if (rate <= 0 || channels <= 0) {
        return makeError("invalid audio stream (" + std::to_string(channels) + " channels at " +
                         std::to_string(rate) + " Hz)");
    }
    // Same rate and channels out, only the sample format changes: to interleaved float.
    AVChannelLayout layout{};
    if (context->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) {
        av_channel_layout_default(&layout, channels);
    } else {
        av_channel_layout_copy(&layout, &context->ch_layout);
    }
    SwrContext* rawSwr = nullptr;
    int rc = swr_alloc_set_opts2(&rawSwr, &layout, AV_SAMPLE_FMT_FLT, rate, &layout, context->sample_fmt, rate, 0, nullptr);
    av_channel_layout_uninit(&layout);
    std::unique_ptr<SwrContext, SwrCloser> swr(rawSwr);
    if (rc < 0 || (rc = swr_init(swr.get())) < 0) return makeError("cannot set up audio conversion: " + avError(rc));

    std::string description = std::string(format->iformat->name) + " / " + codec->name;
    return std::unique_ptr<PcmReader>(
        std::make_unique<FfmpegReader>(std::move(format), std::move(context), std::move(swr), stream, std::move(description)));
}

} // namespace hearsay

#else

namespace hearsay {

Result<std::unique_ptr<PcmReader>> openWithFfmpeg(const std::filesystem::path&) {
    return makeError("this build has no FFmpeg support (HEARSAY_FFMPEG=OFF)");
}

} // namespace hearsay

#endif
