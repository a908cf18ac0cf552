# The audio decoding kernel's C side (audio_decode.h): libsndfile called through function
# pointers over files held in memory (FLAC by its libFLAC, where found); one job per sample,
# opened then decoded (and closed).
from libc.stdint cimport int64_t, uint8_t, uintptr_t


cdef extern from "audio_decode.h" namespace "dali_audio" nogil:
    ctypedef struct SfInfo:
        int64_t frames
        int samplerate, channels

    ctypedef struct SfApi:
        pass

    ctypedef struct Memory:
        const uint8_t* data
        int64_t size, pos

    enum: DIRECT, CONVERT, STAGE, kErrorSize

    ctypedef struct DecodeJob:
        const SfApi* api
        Memory memory
        void* file
        SfInfo info
        int mode, out_type, downmix
        void* out
        float* staging
        char error[kErrorSize]
        bint decoded

    void bind_api(SfApi* api, const uintptr_t* functions)
    bint has_flac(const SfApi* api)
    void open_file(DecodeJob* job)
    void decode_file(DecodeJob* job)
    void close_file(DecodeJob* job)
