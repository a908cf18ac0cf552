// Decoding audio files held in memory with libsndfile, without the GIL: the calls go through
// function pointers taken from the library the `soundfile` package loaded (so the build needs
// no libsndfile headers), and the file's bytes are read through libsndfile's virtual I/O from
// C callbacks over the buffer.  One job per sample: `open_file` reads the header (length,
// rate, channels), `decode_file` reads the samples (straight into the output type, or as
// float to be averaged over channels and/or resampled afterwards) and closes the file.
//
// FLAC samples are decoded by the libFLAC inside that library, called directly when its
// functions were found (`FlacApi`), with libsndfile's conversions done here: libsndfile's own
// per-sample copy out of libFLAC's frames (flac.c's flac_buffer_copy, built without
// optimization in the soundfile wheel) took 40% of the decoding time.  A stream libFLAC
// reports any error for, or that ends short, is decoded again through libsndfile, so such
// files give libsndfile's values and errors as before.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "audio_resample.h"

namespace dali_audio {

struct SfInfo {           // libsndfile's SF_INFO (sf_count_t is 64-bit)
    int64_t frames;
    int samplerate, channels, format, sections, seekable;
};

struct SfVirtualIo {      // libsndfile's SF_VIRTUAL_IO
    int64_t (*get_filelen)(void*);
    int64_t (*seek)(int64_t, int, void*);
    int64_t (*read)(void*, int64_t, void*);
    int64_t (*write)(const void*, int64_t, void*);
    int64_t (*tell)(void*);
};

struct FlacFrameHeader {  // the leading fields of libFLAC's FLAC__FrameHeader
    uint32_t blocksize, sample_rate, channels;
    int channel_assignment;
    uint32_t bits_per_sample;
};

typedef int (*FlacRead)(const void*, uint8_t*, size_t*, void*);
typedef int (*FlacWrite)(const void*, const FlacFrameHeader*, const int32_t* const*, void*);
typedef void (*FlacError)(const void*, int, void*);

struct FlacApi {          // the libFLAC stream decoder functions used (all null: none found)
    void* (*decoder_new)();
    void (*decoder_delete)(void*);
    int (*init_stream)(void*, FlacRead, void*, void*, void*, void*, FlacWrite, void*,
                       FlacError, void*);
    int (*reset)(void*);
    int (*process_single)(void*);
    int (*get_state)(const void*);
};

struct SfApi {            // the libsndfile functions used
    void* (*open_virtual)(SfVirtualIo*, int, SfInfo*, void*);
    int64_t (*readf_short)(void*, int16_t*, int64_t);
    int64_t (*readf_int)(void*, int32_t*, int64_t);
    int64_t (*readf_float)(void*, float*, int64_t);
    int (*close)(void*);
    const char* (*strerror)(void*);
    FlacApi flac;
};

// The functions at the addresses f[0..12): sf_open_virtual, sf_readf_short, sf_readf_int,
// sf_readf_float, sf_close, sf_strerror, then FLAC__stream_decoder_new, _delete,
// _init_stream, _reset, _process_single and _get_state (0 where libFLAC's were not found).
inline void bind_api(SfApi* api, const uintptr_t* f) {
    api->open_virtual = reinterpret_cast<decltype(api->open_virtual)>(f[0]);
    api->readf_short = reinterpret_cast<decltype(api->readf_short)>(f[1]);
    api->readf_int = reinterpret_cast<decltype(api->readf_int)>(f[2]);
    api->readf_float = reinterpret_cast<decltype(api->readf_float)>(f[3]);
    api->close = reinterpret_cast<decltype(api->close)>(f[4]);
    api->strerror = reinterpret_cast<decltype(api->strerror)>(f[5]);
    FlacApi& flac = api->flac;
    flac.decoder_new = reinterpret_cast<decltype(flac.decoder_new)>(f[6]);
    flac.decoder_delete = reinterpret_cast<decltype(flac.decoder_delete)>(f[7]);
    flac.init_stream = reinterpret_cast<decltype(flac.init_stream)>(f[8]);
    flac.reset = reinterpret_cast<decltype(flac.reset)>(f[9]);
    flac.process_single = reinterpret_cast<decltype(flac.process_single)>(f[10]);
    flac.get_state = reinterpret_cast<decltype(flac.get_state)>(f[11]);
}

inline bool has_flac(const SfApi* api) {
    const FlacApi& f = api->flac;
    return f.decoder_new && f.decoder_delete && f.init_stream && f.reset && f.process_single &&
           f.get_state;
}

const int kSfmRead = 0x10;
const int kErrorSize = 256;

struct Memory {
    const uint8_t* data;
    int64_t size, pos;
};

inline int64_t memory_length(void* user) { return static_cast<Memory*>(user)->size; }

inline int64_t memory_seek(int64_t offset, int whence, void* user) {
    Memory* m = static_cast<Memory*>(user);
    int64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;
    int64_t pos = base + offset;
    m->pos = pos < 0 ? 0 : pos > m->size ? m->size : pos;
    return m->pos;
}

inline int64_t memory_read(void* ptr, int64_t count, void* user) {
    Memory* m = static_cast<Memory*>(user);
    int64_t n = std::min(count, m->size - m->pos);
    if (n <= 0) return 0;
    std::memcpy(ptr, m->data + m->pos, n);
    m->pos += n;
    return n;
}

inline int64_t memory_write(const void*, int64_t, void*) { return 0; }

inline int64_t memory_tell(void* user) { return static_cast<Memory*>(user)->pos; }

// How a sample is decoded.
enum Mode {
    DIRECT = 0,       // read into `out` (frames, channels) of out_type (int16, int32, float)
    CONVERT = 1,      // read float into `staging`, average the channels into `out` (1 channel)
    STAGE = 2,        // read float into `staging`, average the channels in place if `downmix`
};

struct DecodeJob {
    const SfApi* api;
    Memory memory;
    void* file;
    SfInfo info;
    int64_t data_pos;     // where libsndfile left the file after reading the header
    int mode, out_type, downmix;
    void* out;
    float* staging;
    char error[kErrorSize];
    bool decoded;         // decode_file ran (the file is closed)
};

// The file opened by libsndfile, which reads its header.
inline void open_sndfile(DecodeJob* job) {
    SfVirtualIo io = {memory_length, memory_seek, memory_read, memory_write, memory_tell};
    std::memset(&job->info, 0, sizeof(job->info));
    job->memory.pos = 0;
    job->file = job->api->open_virtual(&io, kSfmRead, &job->info, &job->memory);
    job->data_pos = job->memory.pos;
    if (!job->file) {
        std::snprintf(job->error, kErrorSize, "%s", job->api->strerror(nullptr));
    } else if (job->info.channels < 1 || job->info.frames < 0) {
        std::snprintf(job->error, kErrorSize, "the header gives %d channels and %lld frames",
                      job->info.channels, static_cast<long long>(job->info.frames));
    }
}

inline void close_file(DecodeJob* job) {
    if (job->file) job->api->close(job->file);
    job->file = nullptr;
}

// The channels of each frame of `data` averaged into the frame's first value, packed.
inline void mix_down(float* data, int64_t frames, int channels) {
    for (int64_t f = 0; f < frames; f++) {
        const float* frame = data + f * channels;
        float sum = 0;
        for (int c = 0; c < channels; c++) sum += frame[c];
        data[f] = sum / channels;
    }
}

const int kWavPcm16 = 0x010002;    // SF_FORMAT_WAV | SF_FORMAT_PCM_16, file's byte order

// The samples of a 16-bit PCM WAV file, which libsndfile leaves positioned at its data chunk
// (checked: the chunk header precedes it and holds all the frames), or null.
inline const uint8_t* wav_pcm16(const DecodeJob* job) {
    const Memory& m = job->memory;
    int64_t bytes = job->info.frames * job->info.channels * 2;
    if (job->info.format != kWavPcm16 || job->data_pos < 8 || job->data_pos + bytes > m.size)
        return nullptr;
    const uint8_t* chunk = m.data + job->data_pos - 8;
    uint32_t size = chunk[4] | chunk[5] << 8 | chunk[6] << 16 | uint32_t(chunk[7]) << 24;
    if (std::memcmp(chunk, "data", 4) != 0 || size < bytes) return nullptr;
    return m.data + job->data_pos;
}

// libsndfile's conversions of 16-bit PCM, done here for WAV files: to int32 shifted left 16
// bits, to float divided by 32768.
inline void convert_pcm16(const uint8_t* src, int64_t n, int out_type, void* out) {
    if (out_type == I16) {
        std::memcpy(out, src, n * 2);
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        int16_t v = int16_t(src[2 * i] | src[2 * i + 1] << 8);
        if (out_type == I32) static_cast<int32_t*>(out)[i] = int32_t(uint32_t(int32_t(v)) << 16);
        else static_cast<float*>(out)[i] = float(v) * (1.0f / 32768);
    }
}

const int kSfFormatFlac = 0x170000;        // SF_FORMAT_FLAC
const int kSfPcmS8 = 1, kSfPcm16 = 2, kSfPcm24 = 3;     // SF_FORMAT_PCM_S8, _16, _24
const int kSfFormatTypeMask = 0x0FFF0000;
const int kFlacEndOfStream = 4;            // FLAC__STREAM_DECODER_END_OF_STREAM

// Where libFLAC's frames go: the first `frames` frames of `channels` values, interleaved, as
// `type` at `out`.
struct FlacTarget {
    Memory memory;
    void* out;
    int type, channels;
    int64_t frames, done;
    bool failed;
};

// A libFLAC decoder kept by each thread and reset for every file (its callbacks get this
// object, which points them at the file being decoded): initializing one asks the CPU for its
// features, about 20 us in a virtual machine (cpuid traps), as long as decoding 5000 frames.
struct FlacDecoder {
    FlacApi api = {};
    void* decoder = nullptr;
    FlacTarget* target = nullptr;

    ~FlacDecoder() { release(); }

    void release() {
        if (decoder) api.decoder_delete(decoder);
        decoder = nullptr;
    }

    // The decoder (initialized) for the functions of `f`, or null.
    void* ready(const FlacApi& f);
};

inline int flac_read(const void*, uint8_t* buffer, size_t* bytes, void* user) {
    Memory* m = &static_cast<FlacDecoder*>(user)->target->memory;
    int64_t n = memory_read(buffer, int64_t(*bytes), m);
    *bytes = size_t(n);
    return n > 0 ? 0 : 1;                  // CONTINUE, END_OF_STREAM
}

inline void flac_error(const void*, int, void* user) {
    static_cast<FlacDecoder*>(user)->target->failed = true;
}

template <typename T, typename Convert>
inline void interleave(const int32_t* const* in, int64_t n, int channels, T* out,
                       Convert convert) {
    for (int c = 0; c < channels; c++) {
        const int32_t* src = in[c];
        for (int64_t i = 0; i < n; i++) out[i * channels + c] = convert(src[i]);
    }
}

// A decoded frame converted as libsndfile's flac_buffer_copy does, by the frame's bit depth
// (only the depths libsndfile reads, 1 to 24): to int16 shifted to 16 bits, to int32 shifted
// left to 32 bits, to float divided by 2^(bits-1).
inline int flac_write(const void*, const FlacFrameHeader* frame, const int32_t* const* buffer,
                      void* user) {
    FlacTarget* t = static_cast<FlacDecoder*>(user)->target;
    const int bits = int(frame->bits_per_sample);
    if (int(frame->channels) != t->channels || bits < 1 || bits > 24) {
        t->failed = true;
        return 1;                          // ABORT
    }
    const int64_t n = std::min(int64_t(frame->blocksize), t->frames - t->done);
    const int channels = t->channels;
    const int64_t at = t->done * channels;
    if (t->type == I16) {
        int16_t* out = static_cast<int16_t*>(t->out) + at;
        if (bits > 16) {
            interleave(buffer, n, channels, out, [bits](int32_t v) {
                return int16_t(v >> (bits - 16));
            });
        } else {
            interleave(buffer, n, channels, out, [bits](int32_t v) {
                return int16_t(uint32_t(v) << (16 - bits));
            });
        }
    } else if (t->type == I32) {
        interleave(buffer, n, channels, static_cast<int32_t*>(t->out) + at, [bits](int32_t v) {
            return int32_t(uint32_t(v) << (32 - bits));
        });
    } else {
        const float norm = 1.0 / (1 << (bits - 1));
        interleave(buffer, n, channels, static_cast<float*>(t->out) + at, [norm](int32_t v) {
            return float(v) * norm;
        });
    }
    t->done += n;
    return 0;
}

inline void* FlacDecoder::ready(const FlacApi& f) {
    if (decoder && api.decoder_new != f.decoder_new) release();
    if (!decoder) {
        api = f;
        decoder = f.decoder_new();
        if (decoder && f.init_stream(decoder, flac_read, nullptr, nullptr, nullptr, nullptr,
                                     flac_write, nullptr, flac_error, this) != 0)
            release();
    }
    return decoder;
}

// The FLAC file of `job` decoded by libFLAC into `out` (`type`, I16, I32 or F32); false where
// libFLAC failed or reported an error, or the stream ended before the header's frame count (the
// thread's decoder is then dropped: the next file gets a new one).
inline bool decode_flac(const DecodeJob* job, int type, void* out) {
    static thread_local FlacDecoder kept;
    const FlacApi& f = job->api->flac;
    FlacTarget t = {{job->memory.data, job->memory.size, 0}, out, type, job->info.channels,
                    job->info.frames, 0, false};
    void* decoder = kept.ready(f);
    if (!decoder) return false;
    kept.target = &t;
    t.failed = !f.reset(decoder);
    while (t.done < t.frames && !t.failed && f.process_single(decoder) &&
           f.get_state(decoder) < kFlacEndOfStream) {}
    kept.target = nullptr;
    const bool ok = !t.failed && t.done == t.frames;
    if (!ok) kept.release();
    return ok;
}

// The header of a plain FLAC stream ("fLaC", then the STREAMINFO block) read here, as
// libsndfile's open reads it, for streams of 8, 16 or 24 bits whose length is given; false for
// any other, left to libsndfile.  libsndfile's FLAC open (a libFLAC decoder of its own, its
// buffers allocated and cleared) took ~50 us a file, against ~2 us for a WAV header: such a
// file is opened by libsndfile only where libFLAC cannot decode it (`decode_file`).
inline bool flac_streaminfo(DecodeJob* job) {
    const Memory& m = job->memory;
    if (m.size < 42 || std::memcmp(m.data, "fLaC", 4) != 0) return false;
    const uint8_t* b = m.data + 4;                  // the first metadata block's header
    if ((b[0] & 0x7f) != 0 || (b[1] << 16 | b[2] << 8 | b[3]) != 34) return false;
    const uint8_t* s = b + 4;                       // STREAMINFO: block and frame sizes first
    const int rate = s[10] << 12 | s[11] << 4 | s[12] >> 4;
    const int channels = ((s[12] >> 1) & 7) + 1;
    const int bits = ((s[12] & 1) << 4 | s[13] >> 4) + 1;
    const int64_t frames = int64_t(s[13] & 0x0f) << 32 | int64_t(s[14]) << 24 |
                           s[15] << 16 | s[16] << 8 | s[17];
    if (rate < 1 || frames < 1 || (bits != 8 && bits != 16 && bits != 24)) return false;
    job->info.frames = frames;
    job->info.samplerate = rate;
    job->info.channels = channels;
    job->info.format = kSfFormatFlac | (bits == 8 ? kSfPcmS8 : bits == 16 ? kSfPcm16 : kSfPcm24);
    return true;
}

inline void open_file(DecodeJob* job) {
    std::memset(&job->info, 0, sizeof(job->info));
    if (!(has_flac(job->api) && flac_streaminfo(job))) open_sndfile(job);
}

inline void decode_file(DecodeJob* job) {
    const int64_t frames = job->info.frames;
    const int channels = job->info.channels;
    int64_t got = frames;
    const uint8_t* pcm16 = wav_pcm16(job);
    const bool flac = (job->info.format & kSfFormatTypeMask) == kSfFormatFlac &&
                      has_flac(job->api);
    const int type = job->mode == DIRECT ? job->out_type : int(F32);
    void* target = job->mode == DIRECT ? job->out : job->staging;
    if (pcm16) {
        convert_pcm16(pcm16, frames * channels, type, target);
    } else if (flac && decode_flac(job, type, target)) {
        // decoded in place by libFLAC
    } else if (!job->file && (open_sndfile(job), job->error[0])) {
        // a header read here (flac_streaminfo), libsndfile's error opening the file
    } else if (job->mode == DIRECT) {
        if (job->out_type == I16)
            got = job->api->readf_short(job->file, static_cast<int16_t*>(job->out), frames);
        else if (job->out_type == I32)
            got = job->api->readf_int(job->file, static_cast<int32_t*>(job->out), frames);
        else
            got = job->api->readf_float(job->file, static_cast<float*>(job->out), frames);
    } else {
        got = job->api->readf_float(job->file, job->staging, frames);
    }
    if (job->error[0]) {
        // not read
    } else if (got != frames) {
        std::snprintf(job->error, kErrorSize, "the file is truncated: %lld of %lld frames read",
                      static_cast<long long>(got), static_cast<long long>(frames));
    } else if (job->mode != DIRECT) {
        if (job->downmix && channels > 1) mix_down(job->staging, frames, channels);
        if (job->mode == CONVERT) {
            for (int64_t f = 0; f < frames; f++) {
                float v = job->staging[f];
                switch (job->out_type) {
                    case I16: static_cast<int16_t*>(job->out)[f] = write_norm<int16_t>(v); break;
                    case I32: static_cast<int32_t*>(job->out)[f] = write_norm<int32_t>(v); break;
                    default: static_cast<float*>(job->out)[f] = v; break;
                }
            }
        }
    }
    close_file(job);
    job->decoded = true;
}

}  // namespace dali_audio
