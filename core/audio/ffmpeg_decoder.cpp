// FFmpeg reading, block by block: demux, decode the best audio stream, convert to interleaved
// float at the stream's own rate and channel count (mixing and resampling happen in one place
// for all decoders, in audio_block_decoder.cpp). Its own library, hearsay_audio_ffmpeg: only the
// programs that decode files themselves link it (container_decoder.h).
#include "core/audio/ffmpeg_decoder.h"

#include "core/audio/audio_limits.h"
#include "core/audio/container_decoder.h"

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

// The sample layout a converter was set up for: a decoded frame must match it exactly, or the
// converter reads planes the frame does not have (a channel count that changes mid-stream made
// libswresample read address 0).
struct FrameShape {
    AVSampleFormat format = AV_SAMPLE_FMT_NONE;
    int rate = 0;
    AVChannelLayout layout{};

    FrameShape() = default;
    FrameShape(const FrameShape&) = delete;
    FrameShape& operator=(const FrameShape&) = delete;
    ~FrameShape() { av_channel_layout_uninit(&layout); }

    // Copies the shape of a frame or a codec context; an unspecified layout becomes the default
    // one for its channel count.
    Result<void> assign(AVSampleFormat newFormat, int newRate, const AVChannelLayout& newLayout) {
        av_channel_layout_uninit(&layout);
        format = newFormat;
        rate = newRate;
        const int channels = newLayout.nb_channels;
        if (newLayout.order == AV_CHANNEL_ORDER_UNSPEC) {
            av_channel_layout_default(&layout, channels);
            return {};
        }
        if (int rc = av_channel_layout_copy(&layout, &newLayout); rc < 0) return makeError(avError(rc));
        return {};
    }

    bool matches(const AVFrame& frame) const {
        if (frame.format != format || frame.sample_rate != rate) return false;
        if (frame.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) return frame.ch_layout.nb_channels == layout.nb_channels;
        return av_channel_layout_compare(&frame.ch_layout, &layout) == 0;
    }
};

// Every value here comes from the file: checked before any of it reaches libswresample.
Result<void> checkStreamValues(int format, int rate, int channels) {
    if (auto shape = checkAudioShape(rate, channels); !shape) return shape;
    if (format < 0 || format >= AV_SAMPLE_FMT_NB || av_get_bytes_per_sample(AVSampleFormat(format)) <= 0) {
        return makeError("invalid sample format " + std::to_string(format));
    }
    return {};
}

// A frame's sample planes must all be there before libswresample reads them.
bool framePlanesPresent(const AVFrame& frame) {
    if (!frame.extended_data || frame.nb_samples < 0) return false;
    const int planes = av_sample_fmt_is_planar(AVSampleFormat(frame.format)) ? frame.ch_layout.nb_channels : 1;
    for (int p = 0; p < planes; ++p) {
        if (!frame.extended_data[p]) return false;
    }
    return true;
}

// A converter from `in` to interleaved float with the reader's fixed rate and layout.
Result<std::unique_ptr<SwrContext, SwrCloser>> makeConverter(const FrameShape& in, const AVChannelLayout& outLayout,
                                                              int outRate) {
    // swr_alloc_set_opts2 takes its layouts by non-const pointer in FFmpeg 5: pass copies.
    AVChannelLayout inLayout{}, out{};
    int rc = av_channel_layout_copy(&inLayout, &in.layout);
    if (rc >= 0) rc = av_channel_layout_copy(&out, &outLayout);
    SwrContext* raw = nullptr;
    if (rc >= 0) rc = swr_alloc_set_opts2(&raw, &out, AV_SAMPLE_FMT_FLT, outRate, &inLayout, in.format, in.rate, 0, nullptr);
    av_channel_layout_uninit(&inLayout);
    av_channel_layout_uninit(&out);
    std::unique_ptr<SwrContext, SwrCloser> swr(raw);
    if (rc >= 0 && !swr) rc = AVERROR(ENOMEM);
    if (rc < 0 || (rc = swr_init(swr.get())) < 0) return makeError("cannot set up audio conversion: " + avError(rc));
    return swr;
}

// One open file: demuxes packets, decodes the chosen stream, converts each decoded frame to
// interleaved float at the stream's first rate and channel layout (a frame whose rate, layout or
// sample format differs, as a damaged or concatenated stream has, is converted to those by a
// converter set up anew). Each next() returns the output of at least one decoded frame.
class FfmpegReader final : public PcmReader {
public:
    FfmpegReader(std::unique_ptr<AVFormatContext, FormatCloser> format, std::unique_ptr<AVCodecContext, CodecCloser> codec,
                 std::unique_ptr<SwrContext, SwrCloser> swr, std::unique_ptr<FrameShape> in,
                 std::unique_ptr<FrameShape> out, int stream, std::string description)
        : m_format(std::move(format)),
          m_codec(std::move(codec)),
          m_swr(std::move(swr)),
          m_in(std::move(in)),
          m_out(std::move(out)),
          m_stream(stream),
          m_channels(m_out->layout.nb_channels),
          m_rate(m_out->rate),
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
            if (auto flushed = drain(block); !flushed) return flushed.error();
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
    // A frame whose planes are missing or whose values are out of range is skipped as damaged.
    Result<void> convert(const AVFrame* frame, std::vector<float>& block) {
        if (frame) {
            if (auto valid = checkStreamValues(frame->format, frame->sample_rate, frame->ch_layout.nb_channels); !valid) {
                noteBadFrame("a decoded frame has an " + valid.message());
                return {};
            }
            if (!framePlanesPresent(*frame)) {
                noteBadFrame("a decoded frame lacks sample planes");
                return {};
            }
            if (!m_in->matches(*frame)) {
                // The stream changed shape: drain the old converter, then convert from the new one.
                if (auto drained = drain(block); !drained) return drained;
                if (auto assigned = m_in->assign(AVSampleFormat(frame->format), frame->sample_rate, frame->ch_layout);
                    !assigned) {
                    return assigned;
                }
                auto swr = makeConverter(*m_in, m_out->layout, m_rate);
                if (!swr) return swr.error();
                m_swr = std::move(swr).value();
            }
        }
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

    Result<void> drain(std::vector<float>& block) { return convert(nullptr, block); }

    void noteBadFrame(std::string why) {
        ++m_badPackets;
        m_lastError = std::move(why);
    }

    std::unique_ptr<AVFormatContext, FormatCloser> m_format;
    std::unique_ptr<AVCodecContext, CodecCloser> m_codec;
    std::unique_ptr<SwrContext, SwrCloser> m_swr;
    std::unique_ptr<FrameShape> m_in;   // what m_swr converts from
    std::unique_ptr<FrameShape> m_out;  // what every block is converted to
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
    // A container FFmpeg only guesses at (it warns "misdetection possible" at these scores) is
    // not taken for audio: bytes that merely contain an MPEG sync word decode to noise.
    if (format->probe_score <= AVPROBE_SCORE_RETRY) {
        return makeError(std::string("only a guess (") + format->iformat->name +
                         ", probe score " + std::to_string(format->probe_score) + " of " +
                         std::to_string(AVPROBE_SCORE_MAX) + ")");
    }
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
    if (auto valid = checkStreamValues(context->sample_fmt, context->sample_rate, context->ch_layout.nb_channels);
        !valid) {
        return makeError("invalid audio stream: " + valid.message());
    }
    // The stream's first rate and channels out, only the sample format changes: to interleaved
    // float (mixing and resampling happen later, in one place for all decoders).
    auto in = std::make_unique<FrameShape>();
    auto out = std::make_unique<FrameShape>();
    for (FrameShape* shape : {in.get(), out.get()}) {
        if (auto assigned = shape->assign(context->sample_fmt, context->sample_rate, context->ch_layout); !assigned) {
            return assigned.error();
        }
    }
    out->format = AV_SAMPLE_FMT_FLT;
    auto swr = makeConverter(*in, out->layout, out->rate);
    if (!swr) return swr.error();

    std::string description = std::string(format->iformat->name) + " / " + codec->name;
    return std::unique_ptr<PcmReader>(
        std::make_unique<FfmpegReader>(std::move(format), std::move(context), std::move(swr).value(),
                                       std::move(in), std::move(out), stream, std::move(description)));
}

void useFfmpegDecoder() { setContainerDecoder(&openWithFfmpeg); }

} // namespace hearsay

#endif
