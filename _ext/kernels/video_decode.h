// VP8/VP9 clips in WebM/Matroska decoded by the libavcodec and libswscale that PyAV loaded,
// called from C: the block index of a clip (parse_webm), and the decode loop of a run of
// packets into RGB frames (decode_runs), with one codec context, packet, frames and SwsContext
// per thread, reused from clip to clip.
//
// No FFmpeg header is needed: the functions are resolved with dlsym in the very libraries PyAV
// mapped (load), and only the public-ABI prefixes of AVFrame and AVPacket are declared (FFmpeg
// appends fields within a major version, never moves them); everything else goes through
// functions and AVOptions.  load() refuses majors other than the ones checked.
#pragma once

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace dali_video {

struct FramePrefix {                 // AVFrame's first fields
    uint8_t* data[8];
    int linesize[8];
    uint8_t** extended_data;
    int width, height;
    int nb_samples;
    int format;
};

struct PacketPrefix {                // AVPacket's first fields
    void* buf;
    int64_t pts, dts;
    uint8_t* data;
    int size;
    int stream_index;
    int flags;
};

enum { CODEC_VP8 = 8, CODEC_VP9 = 9 };
enum { PIX_FMT_RGB24 = 2, PKT_FLAG_KEY = 1, EAGAIN_ERROR = -11 };
enum { AVCODEC_MAJOR = 62, AVUTIL_MAJOR = 60, SWSCALE_MAJOR = 9 };

struct Api {
    unsigned (*avcodec_version)();
    unsigned (*avutil_version)();
    unsigned (*swscale_version)();
    const void* (*avcodec_find_decoder_by_name)(const char*);
    void* (*avcodec_alloc_context3)(const void*);
    int (*avcodec_open2)(void*, const void*, void**);
    int (*avcodec_send_packet)(void*, const void*);
    int (*avcodec_receive_frame)(void*, void*);
    void (*avcodec_flush_buffers)(void*);
    void (*avcodec_free_context)(void**);
    void* (*av_packet_alloc)();
    void (*av_packet_free)(void**);
    void* (*av_frame_alloc)();
    void (*av_frame_free)(void**);
    void (*av_frame_unref)(void*);
    int (*av_frame_get_buffer)(void*, int);
    int (*av_frame_copy_props)(void*, const void*);
    int (*av_opt_set_int)(void*, const char*, int64_t, int);
    void* (*sws_alloc_context)();
    void (*sws_free_context)(void**);
    int (*sws_scale_frame)(void*, void*, const void*);
    const void* decoders[2];         // vp8, vp9
    bool ok;
};

static Api api;

template <typename F>
static bool resolve(void* lib, const char* name, F* out) {
    void* f = dlsym(lib, name);
    *out = reinterpret_cast<F>(f);
    return f != nullptr;
}

// Resolve the functions in the libraries already mapped at these paths (kept mapped to the
// end of the process: pool threads free their contexts as they exit); false where a library
// is not loaded, a function is missing or a major version is not the one checked.
static bool load(const char* avcodec, const char* avutil, const char* swscale) {
    if (api.ok) return true;
    const int mode = RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE;
    void* codec = dlopen(avcodec, mode);
    void* util = dlopen(avutil, mode);
    void* sws = dlopen(swscale, mode);
    if (!codec || !util || !sws) return false;
    Api a = {};
    bool found =
        resolve(codec, "avcodec_version", &a.avcodec_version) &&
        resolve(util, "avutil_version", &a.avutil_version) &&
        resolve(sws, "swscale_version", &a.swscale_version);
    if (!found || a.avcodec_version() >> 16 != AVCODEC_MAJOR ||
        a.avutil_version() >> 16 != AVUTIL_MAJOR || a.swscale_version() >> 16 != SWSCALE_MAJOR)
        return false;
    found =
        resolve(codec, "avcodec_find_decoder_by_name", &a.avcodec_find_decoder_by_name) &&
        resolve(codec, "avcodec_alloc_context3", &a.avcodec_alloc_context3) &&
        resolve(codec, "avcodec_open2", &a.avcodec_open2) &&
        resolve(codec, "avcodec_send_packet", &a.avcodec_send_packet) &&
        resolve(codec, "avcodec_receive_frame", &a.avcodec_receive_frame) &&
        resolve(codec, "avcodec_flush_buffers", &a.avcodec_flush_buffers) &&
        resolve(codec, "avcodec_free_context", &a.avcodec_free_context) &&
        resolve(codec, "av_packet_alloc", &a.av_packet_alloc) &&
        resolve(codec, "av_packet_free", &a.av_packet_free) &&
        resolve(util, "av_frame_alloc", &a.av_frame_alloc) &&
        resolve(util, "av_frame_free", &a.av_frame_free) &&
        resolve(util, "av_frame_unref", &a.av_frame_unref) &&
        resolve(util, "av_frame_get_buffer", &a.av_frame_get_buffer) &&
        resolve(util, "av_frame_copy_props", &a.av_frame_copy_props) &&
        resolve(util, "av_opt_set_int", &a.av_opt_set_int) &&
        resolve(sws, "sws_alloc_context", &a.sws_alloc_context) &&
        resolve(sws, "sws_free_context", &a.sws_free_context) &&
        resolve(sws, "sws_scale_frame", &a.sws_scale_frame);
    if (!found) return false;
    a.decoders[0] = a.avcodec_find_decoder_by_name("vp8");
    a.decoders[1] = a.avcodec_find_decoder_by_name("vp9");
    if (!a.decoders[0] || !a.decoders[1]) return false;
    a.ok = true;
    api = a;
    return true;
}

// ---- WebM / Matroska: the blocks of the first video track -----------------------------------

struct Block {
    int64_t offset, size, pts;
    uint8_t key;
};

struct Track {
    int codec = 0;                   // CODEC_VP8 / CODEC_VP9, 0: the first video track is not
    uint64_t number = 0;
    uint64_t width = 0, height = 0;
    uint64_t timecode_scale = 1000000;
    std::vector<uint64_t> others;     // the numbers of the other tracks
    std::vector<Block> blocks;
};

class Ebml {
  public:
    Ebml(const uint8_t* data, uint64_t size) : d_(data), n_(size) {}

    // The element at `pos` (its ID with the marker bits, the payload's start and end), within
    // `end`; false where it is malformed, has an unknown size or overruns `end`.
    bool element(uint64_t pos, uint64_t end, uint32_t* id, uint64_t* start, uint64_t* stop) const {
        if (pos >= end) return false;
        int len = width(d_[pos], 4);
        if (!len || pos + len > end) return false;
        uint32_t v = 0;
        for (int i = 0; i < len; i++) v = (v << 8) | d_[pos + i];
        pos += len;
        uint64_t size;
        if (!vint(&pos, end, &size, true)) return false;
        if (size > end - pos) return false;
        *id = v;
        *start = pos;
        *stop = pos + size;
        return true;
    }

    // A variable-length integer at *pos (marker stripped); `known`: all-ones is refused.
    bool vint(uint64_t* pos, uint64_t end, uint64_t* value, bool known) const {
        if (*pos >= end) return false;
        int len = width(d_[*pos], 8);
        if (!len || *pos + len > end) return false;
        uint64_t v = d_[*pos] & (0xFFu >> len);
        bool ones = v == (0xFFu >> len);
        for (int i = 1; i < len; i++) {
            v = (v << 8) | d_[*pos + i];
            ones = ones && d_[*pos + i] == 0xFF;
        }
        if (known && ones) return false;
        *pos += len;
        *value = v;
        return true;
    }

    bool uint(uint64_t start, uint64_t stop, uint64_t* value) const {
        if (stop - start > 8) return false;
        uint64_t v = 0;
        for (uint64_t i = start; i < stop; i++) v = (v << 8) | d_[i];
        *value = v;
        return true;
    }

    // Whether the string element [start, stop) reads `text` (trailing NULs allowed).
    bool string_is(uint64_t start, uint64_t stop, const char* text) const {
        uint64_t len = strlen(text);
        if (stop - start < len || memcmp(d_ + start, text, len)) return false;
        for (uint64_t i = start + len; i < stop; i++)
            if (d_[i]) return false;
        return true;
    }

    const uint8_t* d_;
    uint64_t n_;

  private:
    static int width(uint8_t first, int most) {
        for (int len = 1; len <= most; len++)
            if (first & (0x80 >> (len - 1))) return len;
        return 0;
    }
};

enum : uint32_t {
    ID_EBML = 0x1A45DFA3, ID_DOCTYPE = 0x4282, ID_READ_VERSION = 0x42F7,
    ID_MAX_ID_LENGTH = 0x42F2, ID_MAX_SIZE_LENGTH = 0x42F3, ID_DOCTYPE_READ_VERSION = 0x4285,
    ID_SEGMENT = 0x18538067, ID_INFO = 0x1549A966, ID_TIMECODE_SCALE = 0x2AD7B1,
    ID_TRACKS = 0x1654AE6B, ID_TRACK_ENTRY = 0xAE, ID_TRACK_NUMBER = 0xD7, ID_TRACK_TYPE = 0x83,
    ID_CODEC_ID = 0x86, ID_VIDEO = 0xE0, ID_PIXEL_WIDTH = 0xB0, ID_PIXEL_HEIGHT = 0xBA,
    ID_COLOUR = 0x55B0, ID_CONTENT_ENCODINGS = 0x6D80, ID_TRACK_TIMECODE_SCALE = 0x23314F,
    ID_CLUSTER = 0x1F43B675, ID_CLUSTER_TIMECODE = 0xE7, ID_SIMPLE_BLOCK = 0xA3,
    ID_BLOCK_GROUP = 0xA0, ID_SEEK_HEAD = 0x114D9B74, ID_SEEK = 0x4DBB, ID_SEEK_ID = 0x53AB,
    ID_SEEK_POSITION = 0x53AC,
};

struct Element {
    uint64_t id, position;           // a top-level element and its offset in the segment
};

// Whether every entry of the SeekHead [start, stop) names a top-level element of `elements`
// where it is (FFmpeg's demuxer reads the entries it follows while opening: a wrong one can
// fail the open).
static bool seeks_found(const Ebml& e, uint64_t start, uint64_t stop,
                        const std::vector<Element>& elements) {
    uint32_t id, fid;
    uint64_t s, t, fs, ft;
    for (uint64_t pos = start; pos < stop; pos = t) {
        if (!e.element(pos, stop, &id, &s, &t)) return false;
        if (id != ID_SEEK) continue;
        uint64_t target = 0, position = 0;
        bool named = false, placed = false;
        for (uint64_t p = s; p < t; p = ft) {
            if (!e.element(p, t, &fid, &fs, &ft)) return false;
            if (fid == ID_SEEK_ID) named = ft - fs <= 4 && e.uint(fs, ft, &target);
            if (fid == ID_SEEK_POSITION) placed = e.uint(fs, ft, &position);
        }
        bool found = false;
        for (const Element& el : elements)
            found = found || (el.id == target && el.position == position);
        if (!named || !placed || !found) return false;
    }
    return true;
}

static bool parse_header(const Ebml& e, uint64_t start, uint64_t stop) {
    bool doctype = false;
    uint32_t id;
    uint64_t s, t, v;
    for (uint64_t pos = start; pos < stop; pos = t) {
        if (!e.element(pos, stop, &id, &s, &t)) return false;
        if (id == ID_DOCTYPE) {
            if (!e.string_is(s, t, "webm") && !e.string_is(s, t, "matroska")) return false;
            doctype = true;
        } else if (id == ID_READ_VERSION || id == ID_MAX_ID_LENGTH ||
                   id == ID_MAX_SIZE_LENGTH || id == ID_DOCTYPE_READ_VERSION) {
            if (!e.uint(s, t, &v)) return false;
            uint64_t most = id == ID_READ_VERSION ? 1 : id == ID_MAX_ID_LENGTH ? 4
                            : id == ID_MAX_SIZE_LENGTH ? 8 : 3;
            if (v > most) return false;
        }
    }
    return doctype;
}

// The first video track of the Tracks element [start, stop); false where it is not plain VP8
// or VP9 (colour metadata, content encodings, a track timecode scale, no size).
static bool parse_tracks(const Ebml& e, uint64_t start, uint64_t stop, Track* track) {
    uint32_t id, fid;
    uint64_t s, t, fs, ft;
    for (uint64_t pos = start; pos < stop; pos = t) {
        if (!e.element(pos, stop, &id, &s, &t)) return false;
        if (id != ID_TRACK_ENTRY) continue;
        uint64_t number = 0, type = 0, width = 0, height = 0;
        int codec = 0;
        bool plain = true;
        for (uint64_t p = s; p < t; p = ft) {
            if (!e.element(p, t, &fid, &fs, &ft)) return false;
            if (fid == ID_TRACK_NUMBER) {
                if (!e.uint(fs, ft, &number)) return false;
            } else if (fid == ID_TRACK_TYPE) {
                if (!e.uint(fs, ft, &type)) return false;
            } else if (fid == ID_CODEC_ID) {
                codec = e.string_is(fs, ft, "V_VP8") ? CODEC_VP8
                        : e.string_is(fs, ft, "V_VP9") ? CODEC_VP9 : -1;
            } else if (fid == ID_CONTENT_ENCODINGS || fid == ID_TRACK_TIMECODE_SCALE) {
                plain = false;
            } else if (fid == ID_VIDEO) {
                uint32_t vid;
                uint64_t vs, vt;
                for (uint64_t q = fs; q < ft; q = vt) {
                    if (!e.element(q, ft, &vid, &vs, &vt)) return false;
                    if (vid == ID_PIXEL_WIDTH && !e.uint(vs, vt, &width)) return false;
                    if (vid == ID_PIXEL_HEIGHT && !e.uint(vs, vt, &height)) return false;
                    if (vid == ID_COLOUR) plain = false;
                }
            }
        }
        if (!number || number == track->number) return false;
        for (uint64_t other : track->others)
            if (number == other) return false;
        if (type != 1 || track->codec) {
            track->others.push_back(number);
            continue;
        }
        if (!plain || codec <= 0 || !width || !height || width > 0x7FFFFFFF ||
            height > 0x7FFFFFFF)
            return false;
        track->codec = codec;
        track->number = number;
        track->width = width;
        track->height = height;
    }
    return track->codec != 0;
}

// Whether the VP8 or VP9 frame `p` (n > 0 bytes) is a keyframe as its header says (FFmpeg's
// parsers flag packets so, whatever the container says): 1 or 0, -1 where a parser would leave
// it undecided (a short frame, an unknown profile, a VP8 keyframe without its start code).
static int header_key(int codec, const uint8_t* p, int64_t n) {
    if (codec == CODEC_VP8) {
        if (n < 3 || ((p[0] >> 1) & 7) > 3) return -1;
        if (p[0] & 1) return 0;
        return n >= 10 && p[3] == 0x9d && p[4] == 0x01 && p[5] == 0x2a ? 1 : -1;
    }
    int profile = ((p[0] >> 5) & 1) | (((p[0] >> 4) & 1) << 1);
    int bit = 3;                     // frame marker (2 bits), profile (2 bits) read
    if (profile == 3 && ((p[0] >> bit--) & 1)) return -1;
    if ((p[0] >> bit) & 1) return 0;                      // show_existing_frame
    return !((p[0] >> (bit - 1)) & 1);                    // frame_type 0: a keyframe
}

static bool parse_cluster(const Ebml& e, uint64_t start, uint64_t stop, Track* track) {
    uint32_t id;
    uint64_t s, t;
    bool timed = false;
    uint64_t time = 0;
    for (uint64_t pos = start; pos < stop; pos = t) {
        if (!e.element(pos, stop, &id, &s, &t)) return false;
        if (id == ID_CLUSTER_TIMECODE) {
            if (!e.uint(s, t, &time) || time >= (uint64_t(1) << 53)) return false;
            timed = true;
        } else if (id == ID_BLOCK_GROUP) {
            return false;
        } else if (id == ID_SIMPLE_BLOCK) {
            uint64_t p = s, number;
            if (!e.vint(&p, t, &number, false) || t - p < 3) return false;
            if (number != track->number) {
                bool known = false;
                for (uint64_t other : track->others) known = known || number == other;
                if (!known) return false;
                continue;
            }
            int64_t relative = int16_t((e.d_[p] << 8) | e.d_[p + 1]);
            uint8_t flags = e.d_[p + 2];
            p += 3;
            if (!timed || (flags & 0x06) || p == t) return false;
            if (relative < 0 && time < uint64_t(-relative)) return false;
            if (header_key(track->codec, e.d_ + p, t - p) != flags >> 7) return false;
            int64_t pts = int64_t(time) + relative;
            if (!track->blocks.empty() && pts <= track->blocks.back().pts) return false;
            track->blocks.push_back({int64_t(p), int64_t(t - p), pts, uint8_t(flags >> 7)});
        }
    }
    return true;
}

// The blocks of the first video track of a WebM/Matroska file, in feeding order; false
// (nothing decided: PyAV opens it) where anything is out of the plain form this reads: one
// segment ending at the file's end, Info and Tracks before the clusters, SimpleBlocks without
// lacing in clusters with a timecode, strictly increasing timestamps, keyframe flags that are
// the frames' own, SeekHead entries that are right.
static bool parse_webm(const uint8_t* data, uint64_t size, Track* track) {
    Ebml e(data, size);
    uint32_t id;
    uint64_t s, t, scale;
    if (!e.element(0, size, &id, &s, &t) || id != ID_EBML || !parse_header(e, s, t)) return false;
    uint64_t segment_end;
    if (!e.element(t, size, &id, &s, &segment_end) || id != ID_SEGMENT || segment_end != size)
        return false;
    bool info = false, tracks = false;
    std::vector<Element> elements;
    std::vector<uint64_t> seek_heads;
    for (uint64_t pos = s; pos < segment_end; pos = t) {
        uint64_t start;
        if (!e.element(pos, segment_end, &id, &start, &t)) return false;
        elements.push_back({id, pos - s});
        if (id == ID_SEEK_HEAD) {
            seek_heads.push_back(pos);
        } else if (id == ID_INFO) {
            if (info || tracks) return false;
            info = true;
            uint32_t iid;
            uint64_t is, it;
            for (uint64_t p = start; p < t; p = it) {
                if (!e.element(p, t, &iid, &is, &it)) return false;
                if (iid != ID_TIMECODE_SCALE) continue;
                if (!e.uint(is, it, &scale) || !scale || scale > 0x7FFFFFFF) return false;
                track->timecode_scale = scale;
            }
        } else if (id == ID_TRACKS) {
            if (tracks || !parse_tracks(e, start, t, track)) return false;
            tracks = true;
        } else if (id == ID_CLUSTER) {
            if (!info || !tracks || !parse_cluster(e, start, t, track)) return false;
        }
    }
    for (uint64_t pos : seek_heads) {
        uint64_t start, stop;
        e.element(pos, segment_end, &id, &start, &stop);
        if (!seeks_found(e, start, stop, elements)) return false;
    }
    return !track->blocks.empty();
}

// ---- decoding -------------------------------------------------------------------------------

struct Decoder {
    void* context = nullptr;
    int codec = 0, width = 0, height = 0;
    bool fed = false;
    void* packet = nullptr;
    void* frame = nullptr;
    void* rgb = nullptr;
    void* sws = nullptr;

    ~Decoder() {
        if (!api.ok) return;
        api.avcodec_free_context(&context);
        api.av_packet_free(&packet);
        api.av_frame_free(&frame);
        api.av_frame_free(&rgb);
        api.sws_free_context(&sws);
    }

    // A context for `codec` clips of width x height: this thread's, flushed, where `reuse` and
    // it is for such clips; else a new one (one thread: the pool decodes clips in parallel).
    bool ready(int codec_, int width_, int height_, bool reuse, int sws_flags) {
        if (!packet && !(packet = api.av_packet_alloc())) return false;
        if (!frame && !(frame = api.av_frame_alloc())) return false;
        if (!rgb && !(rgb = api.av_frame_alloc())) return false;
        if (!sws) {
            if (!(sws = api.sws_alloc_context())) return false;
            if (api.av_opt_set_int(sws, "threads", 1, 0) < 0 ||
                api.av_opt_set_int(sws, "sws_flags", sws_flags, 0) < 0)
                return false;
        }
        if (context && reuse && codec == codec_ && width == width_ && height == height_) {
            if (fed) api.avcodec_flush_buffers(context);
            fed = false;
            return true;
        }
        api.avcodec_free_context(&context);
        const void* decoder = api.decoders[codec_ == CODEC_VP9];
        context = api.avcodec_alloc_context3(decoder);
        if (!context) return false;
        codec = codec_;
        width = width_;
        height = height_;
        fed = false;
        if (api.av_opt_set_int(context, "threads", 1, 0) < 0 ||
            api.avcodec_open2(context, decoder, nullptr) < 0) {
            api.avcodec_free_context(&context);
            return false;
        }
        return true;
    }

    // The decoded frame as RGB (libswscale, as PyAV's reformatter converts: the frame's
    // properties, a 16-byte aligned buffer of rows padded to 16 bytes) at every place in
    // places[0, count).  Where the first place is such a buffer (16-byte aligned, rows of a
    // multiple of 16 bytes) the frame is converted straight into it; else into a buffer of
    // libavutil's, copied out.
    bool convert(uint8_t* const* places, int64_t count) {
        FramePrefix* src = static_cast<FramePrefix*>(frame);
        FramePrefix* dst = static_cast<FramePrefix*>(rgb);
        if (src->width != width || src->height != height) return false;
        bool ok = api.av_frame_copy_props(rgb, frame) >= 0;
        dst->format = PIX_FMT_RGB24;
        dst->width = width;
        dst->height = height;
        size_t row = size_t(width) * 3;
        bool direct = row % 16 == 0 && reinterpret_cast<uintptr_t>(places[0]) % 16 == 0;
        if (direct) {
            dst->data[0] = places[0];
            dst->linesize[0] = int(row);
        } else {
            ok = ok && api.av_frame_get_buffer(rgb, 16) >= 0;
        }
        ok = ok && api.sws_scale_frame(sws, rgb, frame) >= 0;
        // libswscale may still have given the frame buffers of its own (then copied out)
        direct = direct && dst->data[0] == places[0];
        if (ok) {
            for (int64_t k = direct ? 1 : 0; k < count; k++) {
                if (direct) {
                    memcpy(places[k], places[0], row * size_t(height));
                    continue;
                }
                for (int y = 0; y < height; y++)
                    memcpy(places[k] + y * row, dst->data[0] + int64_t(y) * dst->linesize[0], row);
            }
        }
        api.av_frame_unref(rgb);
        return ok;
    }
};

static thread_local Decoder decoder;

// Decode the runs of one clip: run r feeds blocks from starts[r] and takes the frames
// frames[firsts[r], firsts[r + 1]) (ascending; frame i is block i, the timestamps being
// increasing), each converted into places[place_at[j], place_at[j + 1]).  0, or -1 where
// anything differs from that plain course (an error, a frame missing or of another size, two
// frames out of one block): the caller then decodes the clip through PyAV, which says why.
static int decode_runs(const uint8_t* data, const int64_t* offsets, const int64_t* sizes,
                       const int64_t* pts, const int64_t* keys, int64_t count, int codec,
                       int width, int height, int sws_flags, const int64_t* starts,
                       const int64_t* firsts, int64_t runs, const int64_t* frames,
                       const int64_t* place_at, uint8_t* const* places) {
    if (!api.ok || runs <= 0) return -1;
    for (int64_t r = 0; r < runs; r++) {
        int64_t start = starts[r];
        // The runs of a clip share a context, flushed in between, as PyAV's path does.  A
        // clip starts with a new one, except a VP9 clip starting at a keyframe: that resets
        // all the state a flush leaves (VP8 keyframes keep segment and loop filter deltas).
        bool reuse = r > 0 || (codec == CODEC_VP9 && keys[start]);
        if (start < 0 || start >= count || firsts[r] >= firsts[r + 1] ||
            !decoder.ready(codec, width, height, reuse, sws_flags))
            return -1;
        decoder.fed = true;
        PacketPrefix* packet = static_cast<PacketPrefix*>(decoder.packet);
        int64_t next = firsts[r];
        for (int64_t b = start; next < firsts[r + 1]; b++) {
            if (b >= count || b > frames[next] || sizes[b] > 0x7FFFFF00) return -1;
            packet->data = const_cast<uint8_t*>(data + offsets[b]);
            packet->size = int(sizes[b]);
            packet->pts = packet->dts = pts[b];
            packet->flags = keys[b] ? PKT_FLAG_KEY : 0;
            if (api.avcodec_send_packet(decoder.context, decoder.packet) < 0) return -1;
            int got = 0;
            for (;;) {
                int status = api.avcodec_receive_frame(decoder.context, decoder.frame);
                if (status == EAGAIN_ERROR) break;
                if (status < 0 || ++got > 1) return -1;
                bool ok = b != frames[next] ||
                          decoder.convert(places + place_at[next], place_at[next + 1] - place_at[next]);
                api.av_frame_unref(decoder.frame);
                if (!ok) return -1;
            }
            if (b == frames[next]) {
                if (!got) return -1;
                next++;
            }
        }
    }
    return 0;
}

// One clip of a batch: its bytes and block table (the offsets, sizes, timestamps and keyframe
// flags of its `count` blocks, one row each), and the frame wanted at each of n places (-1:
// none).  status: 0 once decoded, -1 where the caller must go through PyAV.
struct ClipJob {
    const uint8_t* data;
    const int64_t* blocks;
    int64_t count;
    int codec, width, height, sws_flags;
    const int64_t* frames;
    const uint64_t* places;
    int64_t n;
    int status;
};

// Decode a clip's wanted frames, each once, in runs as PyAV's path cuts them (_clip.Clip.runs):
// a run feeds from the last keyframe at or before its first frame (the first block where there
// is none) and takes the next frame into it while that frame's keyframe is not after the
// block of the frame before.
static void decode_job(ClipJob* job) {
    job->status = -1;
    std::vector<std::pair<int64_t, int64_t>> wanted;      // (frame, place)
    for (int64_t k = 0; k < job->n; k++) {
        if (job->frames[k] >= job->count) return;
        if (job->frames[k] >= 0) wanted.push_back({job->frames[k], k});
    }
    if (wanted.empty()) {
        job->status = 0;
        return;
    }
    std::sort(wanted.begin(), wanted.end());
    std::vector<int64_t> frames, place_at, starts, firsts;
    std::vector<uint8_t*> places;
    const int64_t* keys = job->blocks + 3 * job->count;
    int64_t last = -2;
    for (const auto& w : wanted) {
        places.push_back(reinterpret_cast<uint8_t*>(job->places[w.second]));
        if (!frames.empty() && frames.back() == w.first) continue;
        int64_t start = w.first;
        while (start > 0 && !keys[start]) start--;
        if (start > last + 1) {
            starts.push_back(start);
            firsts.push_back(int64_t(frames.size()));
        }
        last = w.first;
        place_at.push_back(int64_t(places.size()) - 1);
        frames.push_back(w.first);
    }
    place_at.push_back(int64_t(places.size()));
    firsts.push_back(int64_t(frames.size()));
    const int64_t* b = job->blocks;
    int64_t count = job->count;
    job->status = decode_runs(job->data, b, b + count, b + 2 * count, keys, count, job->codec,
                              job->width, job->height, job->sws_flags, starts.data(),
                              firsts.data(), int64_t(starts.size()), frames.data(),
                              place_at.data(), places.data());
}

}  // namespace dali_video
