"""Decodes a batch of audio files held in memory with libsndfile, without the GIL, on the
pool: the kernel of fn.decoders.audio and fn.readers.nemo_asr.

libsndfile is the library the `soundfile` package loaded: `Sndfile(addresses)` takes the
addresses of its functions (from soundfile's cffi handle), so this extension neither links nor
needs libsndfile to build; with the addresses of the libFLAC decoder functions inside that
library (`FLAC_FUNCTIONS`), FLAC samples are decoded by libFLAC directly.
`open_files(pool, api, blobs)` reads every header (a `Files`: frames, rates, channels and the
error of each sample that cannot be opened); `decode_files(pool, files, outputs, staging,
modes)` then decodes each sample into its output (mode DIRECT: straight into int16, int32 or
float32 by libsndfile's conversions) or as float into a staging array, averaged over its
channels with `downmix` (mode STAGE, to be resampled afterwards), converted into the output
(mode CONVERT, DALI's normalizing conversion).  The C side is audio_decode.h.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, intptr_t, uintptr_t

from dali._ext.kernels.audio_decode cimport (
    CONVERT, DIRECT, STAGE, DecodeJob, SfApi, bind_api, close_file, decode_file, has_flac,
    open_file,
)
from dali._ext.kernels.sample_data cimport sample_data
from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

FUNCTIONS = ("sf_open_virtual", "sf_readf_short", "sf_readf_int", "sf_readf_float", "sf_close",
             "sf_strerror")
FLAC_FUNCTIONS = ("FLAC__stream_decoder_new", "FLAC__stream_decoder_delete",
                  "FLAC__stream_decoder_init_stream", "FLAC__stream_decoder_reset",
                  "FLAC__stream_decoder_process_single", "FLAC__stream_decoder_get_state")
MODES = {"direct": DIRECT, "convert": CONVERT, "stage": STAGE}
_OUT_TYPES = {np.dtype(np.int16): 3, np.dtype(np.int32): 5, np.dtype(np.float32): 6}
cdef double _NS_PER_BYTE = 5.0           # the cost estimate the pool gets
cdef double _NS_PER_FRAME = 5.0


cdef class Sndfile:
    """The libsndfile functions, from {name: address} of each of `FUNCTIONS` and, where
    found, of all `FLAC_FUNCTIONS` (else FLAC is decoded through libsndfile)."""
    cdef SfApi api

    def __init__(self, dict addresses):
        cdef uintptr_t functions[12]
        flac = all(addresses.get(name) for name in FLAC_FUNCTIONS)
        for k, name in enumerate(FUNCTIONS + FLAC_FUNCTIONS):
            functions[k] = addresses.get(name, 0) if k < len(FUNCTIONS) or flac else 0
            if k < len(FUNCTIONS) and not functions[k]:
                raise ValueError(f"no address for {name}")
        bind_api(&self.api, functions)

    @property
    def has_flac(self):
        """Whether FLAC samples are decoded by libFLAC directly."""
        return has_flac(&self.api)


cdef class Files:
    """The opened files of a batch (closed when decoded, or when this object goes)."""
    cdef DecodeJob* jobs
    cdef Py_ssize_t n
    cdef list keep
    cdef readonly object frames, rates, channels

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.jobs != NULL:
            for i in range(self.n):
                close_file(&self.jobs[i])

    def errors(self):
        """{sample index: libsndfile's message} of the samples that could not be opened."""
        return {i: self.jobs[i].error.decode("utf-8", "replace") for i in range(self.n)
                if self.jobs[i].error[0]}


cdef void _open_job(void* ctx, int64_t i) noexcept nogil:
    open_file((<DecodeJob*>ctx) + i)


cdef void _decode_job(void* ctx, int64_t i) noexcept nogil:
    decode_file((<DecodeJob*>ctx) + i)


def open_files(ThreadPool pool, Sndfile api, blobs):
    """Open every encoded sample and read its header: `blobs` is a list of C-contiguous uint8
    arrays or a BatchStorage of 1-D uint8 samples (read where they are)."""
    cdef Files files = Files.__new__(Files)
    cdef Py_ssize_t n, i
    cdef cnp.ndarray blob
    cdef BatchStorage storage
    cdef const char** data
    files.keep = [blobs]
    if isinstance(blobs, BatchStorage):
        storage = <BatchStorage>blobs
        if storage.dtype != np.uint8 or storage.ndim != 1:
            raise ValueError("the samples must be 1-D uint8 bytes")
        n = storage.num_samples
        data = sample_data(storage, files.keep)
        sizes = np.asarray(storage.shapes, np.int64).reshape(n)
    else:
        n = len(blobs)
        data = <const char**>job_array(n, sizeof(char*), files.keep)
        sizes = np.empty(n, np.int64)
        for i in range(n):
            blob = blobs[i]
            if blob.dtype != np.uint8 or not blob.flags.c_contiguous:
                raise ValueError(f"sample {i} must be C-contiguous uint8 bytes")
            data[i] = <const char*>cnp.PyArray_DATA(blob)
            sizes[i] = blob.size
    files.n = n
    files.jobs = <DecodeJob*>job_array(n, sizeof(DecodeJob), files.keep)
    cdef const int64_t[::1] size = sizes
    for i in range(n):
        files.jobs[i].api = &api.api
        files.jobs[i].memory.data = <const unsigned char*>data[i]
        files.jobs[i].memory.size = size[i]
    run_largest_first(pool, _open_job, files.jobs, sizes, _NS_PER_BYTE)
    files.frames = np.empty(n, np.int64)
    files.rates = np.empty(n, np.float64)
    files.channels = np.empty(n, np.int64)
    cdef int64_t[::1] frames = files.frames
    cdef double[::1] rates = files.rates
    cdef int64_t[::1] channels = files.channels
    for i in range(n):
        frames[i] = files.jobs[i].info.frames
        rates[i] = files.jobs[i].info.samplerate
        channels[i] = files.jobs[i].info.channels
    return files


def decode_files(ThreadPool pool, Files files, outputs, dict staging, modes, bint downmix):
    """Decode every opened sample (all must have opened) into its output: `outputs` is a list
    of C-contiguous arrays or a contiguous BatchStorage (int16, int32 or float32; frames x
    channels values, frames values with mode CONVERT, unused with mode STAGE); `staging`
    holds the float32 array (frames x channels values) of each sample of mode CONVERT or
    STAGE; `modes` is an array of them.  Returns {sample index: message} of the samples that
    could not be read whole."""
    cdef Py_ssize_t n = files.n, i
    cdef cnp.ndarray out, stage
    cdef BatchStorage storage
    modes = np.asarray(modes, np.int64)
    count = outputs.num_samples if isinstance(outputs, BatchStorage) else len(outputs)
    if count != n or len(modes) != n:
        raise ValueError(f"outputs and modes must have {n} entries")
    if files.errors() or not np.isin(modes, (DIRECT, CONVERT, STAGE)).all():
        raise ValueError("every file must have opened, every mode be known")
    if isinstance(outputs, BatchStorage):
        storage = <BatchStorage>outputs
        if storage.dtype not in _OUT_TYPES or not storage.is_contiguous:
            raise ValueError("the outputs must be contiguous int16, int32 or float32")
        out_type = _OUT_TYPES[storage.dtype]
        pointers = <intptr_t>storage.data + np.asarray(storage.offsets, np.int64)
        counts = np.prod(np.asarray(storage.shapes, np.int64).reshape(n, storage.ndim),
                         axis=1)
    else:
        out_type = _OUT_TYPES.get(outputs[0].dtype, 0) if n else 6
        pointers, counts = np.empty(n, np.int64), np.empty(n, np.int64)
        for i in range(n):
            out = outputs[i]
            if out.dtype != outputs[0].dtype or not out.flags.c_contiguous or \
                    not out.flags.writeable:
                raise ValueError(f"output {i} must be a writable C-contiguous array of the "
                                 "first one's type")
            pointers[i] = <intptr_t>cnp.PyArray_DATA(out)
            counts[i] = out.size
        if out_type == 0:
            raise ValueError(f"unsupported output type {outputs[0].dtype}")
    need = files.frames * np.where(modes == CONVERT, 1, files.channels)
    if ((counts != need) & (modes != STAGE)).any():
        raise ValueError(f"the outputs do not fit the samples: {counts} for {need}")
    files.keep += [outputs, staging]
    cdef const int64_t[::1] at = pointers
    cdef const int64_t[::1] mode = modes
    for i in range(n):
        if files.jobs[i].decoded:
            raise ValueError(f"sample {i} was decoded already")
        files.jobs[i].mode = <int>mode[i]
        files.jobs[i].downmix = downmix
        files.jobs[i].out_type = out_type
        files.jobs[i].out = <void*><intptr_t>at[i]
        if mode[i] != DIRECT:
            stage = staging[i]
            if (stage.dtype != np.float32 or not stage.flags.c_contiguous or
                    stage.size != files.frames[i] * files.channels[i]):
                raise ValueError(f"staging {i} does not fit sample {i}")
            files.jobs[i].staging = <float*>cnp.PyArray_DATA(stage)
    run_largest_first(pool, _decode_job, files.jobs, files.frames * files.channels,
                      _NS_PER_FRAME)
    return files.errors()
