// FFmpeg reading loop: demux, decode the best audio stream, convert to interleaved float at
// the stream's own rate and channel count (mixing and resampling happen in one place for all
// decoders, in audio_file.cpp).
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

// The decoder state for one file: decodes packets and hands converted frames on.
class StreamDecoder {
public:
    StreamDecoder(AVCodecContext* codec, SwrContext* swr, int channels, PcmConsumer& consumer)
        : m_codec(codec), m_swr(swr), m_channels(channels), m_consumer(consumer), m_frame(av_frame_alloc()) {}

    // Sends one packet (nullptr: end of stream) and drains the frames it yields.
    Result<void> feed(const AVPacket* packet) {
        const int sent = avcodec_send_packet(m_codec, packet);
        if (sent < 0 && sent != AVERROR_EOF) {
            // A damaged packet (common in real MP3/AAC files): skip it, but remember why.
            ++m_badPackets;
            m_lastError = avError(sent);
            return {};
        }
        while (true) {
            const int got = avcodec_receive_frame(m_codec, m_frame.get());
            if (got == AVERROR(EAGAIN) || got == AVERROR_EOF) return {};
            if (got < 0) {
                ++m_badPackets;
                m_lastError = avError(got);
                return {};
            }
            auto converted = convert(m_frame.get());
            av_frame_unref(m_frame.get());
            if (!converted) return converted;
        }
    }

    // Releases whatever the converter still holds (nothing, at equal rates, but cheap to ask).
    Result<void> finish() {
        const int capacity = swr_get_out_samples(m_swr, 0);
        if (capacity <= 0) return {};
        m_buffer.resize(size_t(capacity) * size_t(m_channels));
        uint8_t* out[1] = {reinterpret_cast<uint8_t*>(m_buffer.data())};
        const int frames = swr_convert(m_swr, out, capacity, nullptr, 0);
        if (frames <= 0) return {};
        m_framesOut += size_t(frames);
        return m_consumer.consume(m_buffer.data(), size_t(frames));
    }

    size_t framesOut() const { return m_framesOut; }
    int badPackets() const { return m_badPackets; }
    const std::string& lastError() const { return m_lastError; }

private:
    Result<void> convert(const AVFrame* frame) {
        const int capacity = swr_get_out_samples(m_swr, frame->nb_samples);
        if (capacity < 0) return makeError("audio conversion failed: " + avError(capacity));
        m_buffer.resize(size_t(capacity) * size_t(m_channels));
        uint8_t* out[1] = {reinterpret_cast<uint8_t*>(m_buffer.data())};
        const int frames = swr_convert(m_swr, out, capacity, const_cast<const uint8_t**>(frame->extended_data),
                                       frame->nb_samples);
        if (frames < 0) return makeError("audio conversion failed: " + avError(frames));
        m_framesOut += size_t(frames);
        return m_consumer.consume(m_buffer.data(), size_t(frames));
    }

    AVCodecContext* m_codec;
    SwrContext* m_swr;
    int m_channels;
    PcmConsumer& m_consumer;
    std::unique_ptr<AVFrame, FrameCloser> m_frame;
    std::vector<float> m_buffer;  // [frames][channels]
    size_t m_framesOut = 0;
    int m_badPackets = 0;
    std::string m_lastError;
};

} // namespace

Result<std::string> decodeWithFfmpeg(const std::filesystem::path& path, PcmConsumer& consumer) {
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

    if (auto begun = consumer.begin(rate, channels); !begun) return begun.error();
    StreamDecoder decoder(context.get(), swr.get(), channels, consumer);
    std::unique_ptr<AVPacket, PacketCloser> packet(av_packet_alloc());
    while (true) {
        rc = av_read_frame(format.get(), packet.get());
        if (rc == AVERROR_EOF) break;
        if (rc < 0) return makeError("read error: " + avError(rc));
        Result<void> fed = packet->stream_index == stream ? decoder.feed(packet.get()) : Result<void>();
        av_packet_unref(packet.get());
        if (!fed) return fed.error();
    }
    if (auto fed = decoder.feed(nullptr); !fed) return fed.error();
    if (auto finished = decoder.finish(); !finished) return finished.error();
    if (decoder.framesOut() == 0 && decoder.badPackets() > 0) {
        return makeError("could not decode its " + std::string(codec->name) + " audio: " + decoder.lastError());
    }
    return std::string(format->iformat->name) + " / " + codec->name;
}

} // namespace hearsay

#else

namespace hearsay {

Result<std::string> decodeWithFfmpeg(const std::filesystem::path&, PcmConsumer&) {
    return makeError("this build has no FFmpeg support (HEARSAY_FFMPEG=OFF)");
}

} // namespace hearsay

#endif
