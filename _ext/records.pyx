"""Records parsed in C without the GIL, without TensorFlow or protobuf: tf.train.Example
records (readers.tfrecord), MXNet RecordIO records (readers.mxnet), Caffe Datum and Caffe2
TensorProtos messages (readers.caffe, readers.caffe2: see their section below), and the batch
helpers of the record readers (`gather_spans`: the samples' bytes out of their records in one
copy; `source_infos`: a batch's source info strings in one call).

A TFRecord record is `length` (uint64 LE), a masked crc32c of the length (4 bytes), `length`
bytes of data and a masked crc32c of the data (4 bytes).  As in DALI, the CRCs are not checked;
the length must match the record's size in the index.  The data is an `Example`; only these
parts of the protobuf wire format matter:

    Example  { Features features = 1; }
    Features { map<string, Feature> feature = 1; }     // entries: { key = 1; value = 2; }
    Feature  { oneof { BytesList bytes_list = 1; FloatList float_list = 2;
                       Int64List int64_list = 3; } }
    BytesList { repeated bytes value = 1; }
    FloatList { repeated float value = 1; }            // packed or not
    Int64List { repeated int64 value = 1; }            // packed or not (varints)

Unknown fields are skipped (wire types 0, 1, 2, 5); groups, truncated messages and varints
longer than 10 bytes are errors.  `example_spans` finds, in each record of a batch, the span
of each wanted feature's value list (and a bytes list's first value); `example_features`
makes the outputs of the usual batch (every record holding each feature as declared) in one
call, and `numbers` decodes the float or int64 values of one feature over the batch for the
others.  `recordio_spans` locates the labels and
the image of MXNet RecordIO records (readers.mxnet), and `recordio_outputs` copies them out of
a batch of whole records in one call."""

cimport numpy as cnp
import numpy as np

from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdio cimport snprintf
from libc.string cimport memchr, memcmp, memcpy, memset

from dali._ext.tensor_storage cimport BatchStorage

cnp.import_array()

cdef enum:
    _W = 5                    # values per feature in the spans

# `_numbers` refusing more values than its room (`example_features`: more than a fixed-length
# feature takes; `numbers` gives every record the room its span could hold)
cdef const char* _NO_ROOM = "more values than room for them"


cdef int64_t _varint(const uint8_t* b, int64_t* pos, int64_t end,
                     const char** err) noexcept nogil:
    cdef uint64_t result = 0
    cdef int shift = 0
    cdef uint8_t c
    while True:
        if pos[0] >= end:
            err[0] = "truncated varint"
            return 0
        c = b[pos[0]]
        pos[0] += 1
        if shift < 64:
            result |= (<uint64_t>(c & 0x7F)) << shift
        if not c & 0x80:
            return <int64_t>result
        shift += 7
        if shift >= 70:
            err[0] = "varint longer than 10 bytes"
            return 0


cdef int _field(const uint8_t* b, int64_t* pos, int64_t end, int* no, int* wire,
                int64_t* start, int64_t* stop, const char** err) noexcept nogil:
    """The next field of b[pos:end]: number, wire type and payload span (for varints, the
    span of the varint).  Returns -1 with *err set on malformed input."""
    cdef int64_t key = _varint(b, pos, end, err), n
    if err[0] != NULL:
        return -1
    no[0] = <int>(key >> 3)
    wire[0] = <int>(key & 7)
    start[0] = pos[0]
    if wire[0] == 0:
        _varint(b, pos, end, err)
        stop[0] = pos[0]
        return -1 if err[0] != NULL else 0
    if wire[0] == 2:
        n = _varint(b, pos, end, err)
        if err[0] != NULL:
            return -1
        if n < 0 or n > end - pos[0]:
            err[0] = "truncated message"
            return -1
        start[0] = pos[0]
        stop[0] = pos[0] + n
    elif wire[0] == 1:
        stop[0] = pos[0] + 8
    elif wire[0] == 5:
        stop[0] = pos[0] + 4
    else:
        err[0] = "unsupported wire type"
        return -1
    if stop[0] > end:
        err[0] = "truncated message"
        return -1
    pos[0] = stop[0]
    return 0


cdef int _record(const uint8_t* b, int64_t n, int k, const char** names,
                 const int64_t* name_lens, int64_t* out, const char** err) noexcept nogil:
    """Fill out[W j .. W j + 4] = (kind, start, stop, first start, first stop) of wanted
    feature j: its value list and, for a bytes list, its first value (kind 0: not in the record
    or an empty Feature; first stop < first start: a bytes list without values).  Returns -1
    with *err set on malformed input."""
    cdef int64_t length = 0, pos, end, fpos, fstart, fstop, epos, estart, estop
    cdef int64_t vpos, vstart, vstop, s, e, ns, ne, vs, ve
    cdef int no, wire, j, i
    cdef bint has_name, has_value
    for j in range(_W * k):
        out[j] = 0
    if n < 16:
        err[0] = "a record shorter than its framing (16 bytes)"
        return -1
    for i in range(8):
        length |= (<int64_t>b[i]) << (8 * i)
    if length < 0 or length != n - 16:
        err[0] = "the record's length field does not match its index entry"
        return -1
    pos = 12
    end = 12 + length
    while pos < end:
        if _field(b, &pos, end, &no, &wire, &s, &e, err) < 0:
            return -1
        if no != 1 or wire != 2:
            continue
        fpos = s
        while fpos < e:
            if _field(b, &fpos, e, &no, &wire, &fstart, &fstop, err) < 0:
                return -1
            if no != 1 or wire != 2:
                continue
            has_name = has_value = False
            epos = fstart
            ns = ne = vs = ve = 0
            while epos < fstop:
                if _field(b, &epos, fstop, &no, &wire, &estart, &estop, err) < 0:
                    return -1
                if no == 1 and wire == 2:
                    has_name = True
                    ns, ne = estart, estop
                elif no == 2 and wire == 2:
                    has_value = True
                    vs, ve = estart, estop
            if not has_name:
                continue
            for j in range(k):
                if name_lens[j] == ne - ns and memcmp(names[j], b + ns, <size_t>(ne - ns)) == 0:
                    out[_W * j] = 0
                    if has_value:
                        vpos = vs
                        while vpos < ve:
                            if _field(b, &vpos, ve, &no, &wire, &vstart, &vstop, err) < 0:
                                return -1
                            if 1 <= no <= 3 and wire == 2:
                                out[_W * j] = no
                                out[_W * j + 1] = vstart
                                out[_W * j + 2] = vstop
                    if out[_W * j] == 1 and _first(b, out + _W * j, err) < 0:
                        return -1
                    break
    return 0


cdef int _first(const uint8_t* b, int64_t* out, const char** err) noexcept nogil:
    """out[3], out[4] = the span of the first value of the bytes list at out[1]..out[2]
    (out[4] = -1 when it has none)."""
    cdef int64_t pos = out[1], s, e
    cdef int no, wire
    out[4] = -1
    while pos < out[2]:
        if _field(b, &pos, out[2], &no, &wire, &s, &e, err) < 0:
            return -1
        if no == 1 and wire == 2:
            out[3] = s
            out[4] = e
            return 0
    return 0


cdef int _pointers(records, const uint8_t** data, int64_t* sizes) except -1:
    """data[i], sizes[i] = the bytes of record i of `records`: a list of C-contiguous uint8
    arrays, or a contiguous uint8 BatchStorage of 1-D samples; else ValueError."""
    cdef Py_ssize_t i
    cdef cnp.ndarray r
    if isinstance(records, BatchStorage):
        _storage_pointers(records, data, sizes)
        return 0
    for i in range(len(records)):
        r = records[i]
        if cnp.PyArray_TYPE(r) != cnp.NPY_UINT8 or not cnp.PyArray_IS_C_CONTIGUOUS(r):
            raise ValueError(f"record {i} must be a C-contiguous uint8 array")
        data[i] = <const uint8_t*>cnp.PyArray_DATA(r)
        sizes[i] = cnp.PyArray_SIZE(r)
    return 0


cdef Py_ssize_t _count(records) except -1:
    """How many records `records` (as `_pointers` takes them) holds."""
    return (<BatchStorage>records).num_samples if isinstance(records, BatchStorage) \
        else len(records)


cdef int _storage_pointers(BatchStorage st, const uint8_t** data, int64_t* sizes) except -1:
    """`_pointers` of a BatchStorage: one contiguous block of uint8 samples of one dimension."""
    cdef Py_ssize_t i
    if st.base is None or st.dtype != np.uint8 or st.ndim != 1:
        raise ValueError("records must be a contiguous batch of 1-D uint8 samples")
    cdef const int64_t[::1] offs = st.offsets
    cdef const int64_t[:, ::1] shapes = st.shapes
    for i in range(st.num_samples):
        data[i] = <const uint8_t*>st.data + offs[i]
        sizes[i] = shapes[i, 0]
    return 0


def example_spans(records, list names):
    """(spans, None): an int64 array (len(records), len(names), 5) of (kind, start, stop,
    first start, first stop) of each wanted feature in each record: the span of its value list
    (kind 1 bytes, 2 float, 3 int64; 0: not in the record) and, for bytes, of its first value
    (first stop -1: none); or (None, (index, message)) for the first malformed record.
    `records` are whole framed records (a list of C-contiguous uint8 arrays, or a contiguous
    BatchStorage of them), `names` bytes."""
    cdef Py_ssize_t n = _count(records), i
    cdef int k = len(names), j
    cdef cnp.ndarray[cnp.int64_t, ndim=3] spans = np.zeros((n, k, _W), np.int64)
    cdef const char** cnames = <const char**>malloc(max(k, 1) * sizeof(char*))
    cdef int64_t* lens = <int64_t*>malloc(max(k, 1) * sizeof(int64_t))
    cdef const uint8_t** data = <const uint8_t**>malloc(max(n, 1) * sizeof(uint8_t*))
    cdef int64_t* sizes = <int64_t*>malloc(max(n, 1) * sizeof(int64_t))
    cdef const char* err = NULL
    cdef Py_ssize_t failed = -1
    cdef int64_t* out = <int64_t*>cnp.PyArray_DATA(spans)
    try:
        if cnames == NULL or lens == NULL or data == NULL or sizes == NULL:
            raise MemoryError()
        for j in range(k):
            if type(names[j]) is not bytes:
                raise TypeError("feature names must be bytes")
            cnames[j] = <const char*>names[j]
            lens[j] = len(names[j])
        _pointers(records, data, sizes)
        with nogil:
            for i in range(n):
                if _record(data[i], sizes[i], k, cnames, lens, out + _W * k * i, &err) < 0:
                    failed = i
                    break
        if failed >= 0:
            return None, (failed, (<bytes>err).decode())
        return spans, None
    finally:
        free(cnames)
        free(lens)
        free(data)
        free(sizes)


cdef int64_t _numbers(const uint8_t* b, int64_t pos, int64_t end, int kind, void* out,
                      int64_t room, const char** err) noexcept nogil:
    """Decode the values of the FloatList (kind 2, into float32) or Int64List (kind 3, into
    int64) message b[pos:end], packed or not, into out (room for `room` values); returns their
    count, -1 on error or when they do not fit."""
    cdef int64_t count = 0, s, e, p
    cdef int no, wire
    cdef float* f = <float*>out
    cdef int64_t* q = <int64_t*>out
    while pos < end:
        if _field(b, &pos, end, &no, &wire, &s, &e, err) < 0:
            return -1
        if no != 1:
            continue
        if kind == 2 and (wire == 2 or wire == 5):
            if (e - s) % 4:
                err[0] = "a packed float list is not a whole number of floats"
                return -1
            if count + (e - s) // 4 > room:
                err[0] = _NO_ROOM
                return -1
            memcpy(f + count, b + s, <size_t>(e - s))
            count += (e - s) // 4
        elif kind == 3 and wire == 0:
            if count >= room:
                err[0] = _NO_ROOM
                return -1
            p = s
            q[count] = _varint(b, &p, e, err)
            if err[0] != NULL:
                return -1
            count += 1
        elif kind == 3 and wire == 2:
            p = s
            while p < e:
                if count >= room:
                    err[0] = _NO_ROOM
                    return -1
                q[count] = _varint(b, &p, e, err)
                if err[0] != NULL:
                    return -1
                count += 1
        else:
            err[0] = "a value of the wrong wire type"
            return -1
    return count


def numbers(records, spans, int kind):
    """(values, counts, None): the values of one numeric feature in each record, back to back
    (float32 for kind 2, int64 for kind 3) and how many each record has (records whose span
    has another kind count 0), from `spans` (n, 5) of `example_spans`; or (None, None,
    (index, message)) for a malformed list.  `records` as `example_spans` takes them."""
    cdef Py_ssize_t n = _count(records), i
    cdef cnp.ndarray[cnp.int64_t, ndim=2] sp = np.ascontiguousarray(spans, np.int64)
    if sp.shape[0] != n or sp.shape[1] != _W or kind not in (2, 3):
        raise ValueError("one row of spans per record, and kind 2 or 3")
    cdef int64_t bound = 0, total = 0, got
    for i in range(n):
        if sp[i, 0] == kind:
            bound += sp[i, 2] - sp[i, 1]
    values = np.empty(bound, np.float32 if kind == 2 else np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] counts = np.zeros(n, np.int64)
    cdef const uint8_t** data = <const uint8_t**>malloc(max(n, 1) * sizeof(uint8_t*))
    cdef int64_t* sizes = <int64_t*>malloc(max(n, 1) * sizeof(int64_t))
    cdef char* out = <char*>cnp.PyArray_DATA(values)
    cdef Py_ssize_t esize = 4 if kind == 2 else 8
    cdef const char* err = NULL
    cdef Py_ssize_t failed = -1
    try:
        if data == NULL or sizes == NULL:
            raise MemoryError()
        _pointers(records, data, sizes)
        for i in range(n):
            if sp[i, 2] > sizes[i] or sp[i, 1] < 0 or sp[i, 1] > sp[i, 2]:
                raise ValueError(f"record {i}: not a uint8 record holding its span")
        with nogil:
            for i in range(n):
                if sp[i, 0] != kind:
                    continue
                got = _numbers(data[i], sp[i, 1], sp[i, 2], kind, out + total * esize,
                               bound - total, &err)
                if got < 0:
                    failed = i
                    break
                counts[i] = got
                total += got
        if failed >= 0:
            return None, None, (failed, (<bytes>err).decode())
        return values[:total], counts, None
    finally:
        free(data)
        free(sizes)


def example_features(records, spans, list features):
    """The outputs of a batch whose records all hold each feature as declared: a contiguous
    BatchStorage per feature of `features`, or None for a feature that some record lacks or
    holds otherwise (`dali.ops.readers.tfrecord` makes that output, or gives the error, in
    Python).  `features`: (kind, shape) each, kind 1 (bytes: the first value, uint8 1-D; shape
    ignored), 2 or 3 (float32 or int64 values, exactly as many as `shape` holds, in that shape;
    shape None: a variable number, always None here).  `records` and `spans` as
    `example_spans` takes and returns them."""
    cdef _Buffers bufs = _Buffers(records)
    cdef Py_ssize_t n = _count(records), k = len(features), j
    cdef cnp.ndarray[cnp.int64_t, ndim=3] sp = np.ascontiguousarray(spans, np.int64)
    if sp.shape[0] != n or sp.shape[1] != k or sp.shape[2] != _W:
        raise ValueError("spans of every feature in every record")
    return [_feature(bufs.data, bufs.sizes, n, <int64_t*>cnp.PyArray_DATA(sp) + _W * j,
                     _W * k, kind, shape)
            for j, (kind, shape) in enumerate(features)]


cdef object _feature(const uint8_t** data, const int64_t* sizes, Py_ssize_t n,
                     const int64_t* sp, Py_ssize_t stride, int kind, shape):
    """`example_features`' output of one feature (spans `sp`, `stride` apart), or None."""
    cdef Py_ssize_t i
    cdef const int64_t* row
    cdef int64_t size = 1, esize = 4 if kind == 2 else 8
    cdef const char* err = NULL
    cdef bint ok = True
    cdef BatchStorage st
    cdef char* dst
    cdef const int64_t* offs
    cdef int64_t* lengths
    for i in range(n):
        row = sp + stride * i
        if row[0] != kind or not 0 <= row[1] <= row[2] <= sizes[i]:
            return None
    if kind == 1:
        shapes = np.empty((n, 1), np.int64)
        lengths = <int64_t*>cnp.PyArray_DATA(shapes)
        for i in range(n):
            row = sp + stride * i
            if not 0 <= row[3] <= row[4] <= sizes[i]:
                return None
            lengths[i] = row[4] - row[3]
        st = BatchStorage.allocate(np.uint8, shapes, ndim=1)
        offs = <const int64_t*>cnp.PyArray_DATA(st.offsets)
        with nogil:
            for i in range(n):
                memcpy(st.data + offs[i], data[i] + sp[stride * i + 3], <size_t>lengths[i])
        return st
    if shape is None:
        return None
    for extent in shape:
        size *= <int64_t>extent
    st = BatchStorage.allocate(np.float32 if kind == 2 else np.int64, [shape] * n,
                               ndim=len(shape))
    dst = st.data
    with nogil:
        for i in range(n):
            row = sp + stride * i
            if _numbers(data[i], row[1], row[2], kind, dst + i * size * esize, size,
                        &err) != size:
                ok = False
                break
    return st if ok else None


def recordio_spans(records):
    """MXNet RecordIO records of one part (continuation flag 0) parsed in C: an int64 array
    (n, 4) of (image start, image stop, label start, label count) per record (labels: float32
    from `label start`; count 0: the one label of the header, at byte 12), or -1 in the first
    column for a record split in parts or malformed (`dali.ops.readers.mxnet` parses those and
    says what is wrong).  `records` as `example_spans` takes them."""
    cdef Py_ssize_t n = _count(records), i
    cdef cnp.ndarray[cnp.int64_t, ndim=2] out = np.full((n, 4), -1, np.int64)
    cdef const uint8_t** data = <const uint8_t**>malloc(max(n, 1) * sizeof(uint8_t*))
    cdef int64_t* sizes = <int64_t*>malloc(max(n, 1) * sizeof(int64_t))
    cdef int64_t* o = <int64_t*>cnp.PyArray_DATA(out)
    try:
        if data == NULL or sizes == NULL:
            raise MemoryError()
        _pointers(records, data, sizes)
        with nogil:
            for i in range(n):
                _recordio(data[i], sizes[i], o + 4 * i)
        return out
    finally:
        free(data)
        free(sizes)


def recordio_outputs(records):
    """[images, labels] of MXNet RecordIO records that are all of one part (as
    `recordio_spans` locates them): contiguous batches of the images (uint8, 1-D) and of the
    labels (float32, 1-D: the one of the header when the header counts none); or None when a
    record is split or malformed (`dali.ops.readers.mxnet` reads that batch in Python).
    `records` as `example_spans` takes them."""
    cdef _Buffers bufs = _Buffers(records)
    cdef Py_ssize_t n = _count(records), i
    spans = np.empty((n, 4), np.int64)
    image_shapes = np.empty((n, 1), np.int64)
    label_shapes = np.empty((n, 1), np.int64)
    cdef int64_t* sp = <int64_t*>cnp.PyArray_DATA(spans)
    cdef int64_t* isz = <int64_t*>cnp.PyArray_DATA(image_shapes)
    cdef int64_t* lsz = <int64_t*>cnp.PyArray_DATA(label_shapes)
    cdef const uint8_t** data = bufs.data
    cdef bint whole = True
    cdef BatchStorage images, labels
    cdef const int64_t* ioff
    cdef const int64_t* loff
    with nogil:
        for i in range(n):
            sp[4 * i] = -1
            _recordio(data[i], bufs.sizes[i], sp + 4 * i)
            if sp[4 * i] < 0:
                whole = False
                break
            isz[i] = sp[4 * i + 1] - sp[4 * i]
            lsz[i] = max(sp[4 * i + 3], 1)
    if not whole:
        return None
    images = BatchStorage.allocate(np.uint8, image_shapes, ndim=1)
    labels = BatchStorage.allocate(np.float32, label_shapes, ndim=1)
    ioff = <const int64_t*>cnp.PyArray_DATA(images.offsets)
    loff = <const int64_t*>cnp.PyArray_DATA(labels.offsets)
    with nogil:
        for i in range(n):
            memcpy(images.data + ioff[i], data[i] + sp[4 * i], <size_t>isz[i])
            memcpy(labels.data + loff[i], data[i] + sp[4 * i + 2], <size_t>(4 * lsz[i]))
    return [images, labels]


cdef void _recordio(const uint8_t* b, int64_t n, int64_t* out) noexcept nogil:
    cdef uint32_t magic, lrec, flag
    cdef int64_t length, end
    cdef uint32_t nlabels
    if n < 8:
        return
    memcpy(&magic, b, 4)
    memcpy(&lrec, b + 4, 4)
    flag = lrec >> 29
    length = lrec & ((1 << 29) - 1)
    if magic != <uint32_t>0xCED7230AU or flag != 0 or 8 + length > n or length < 24:
        return
    memcpy(&nlabels, b + 8, 4)
    end = 8 + 24 + 4 * <int64_t>nlabels
    if end > 8 + length:
        return
    out[0] = end
    out[1] = 8 + length
    out[2] = 8 + 24 if nlabels else 12
    out[3] = nlabels


# -- Caffe Datum and Caffe2 TensorProtos records (readers.caffe, readers.caffe2) ---------------
#
# The fast path of `dali.ops.readers.caffe` / `caffe2`, whose Python parsers (over
# `dali._protobuf_wire`) stay the reference: anything these refuse (malformed input, or a
# record the Python path would refuse or treat specially) returns -1, and the reader parses the
# batch in Python, which gives the error (or the rare result) as before.  Accepted records give
# exactly the Python path's values.

cdef enum:
    _CAFFE_W = 7              # flags, data start, data stop, channels, height, width, label
    _C2_W = 8                 # per output: dtype, ndim, d0, d1, d2, mode, proto, count
    _HAS_DATA = 1
    _HAS_LABEL = 2
    _RAW = 4                  # `encoded: false`


cdef int _wfield(const uint8_t* b, int64_t* pos, int64_t end, int* no, int* wire,
                 int64_t* start, int64_t* stop) noexcept nogil:
    """`_field`, refusing keys the Python path reads differently (field number 0, keys past
    32 bits)."""
    cdef const char* err = NULL
    cdef int64_t p = pos[0]
    cdef int64_t key = _varint(b, &p, end, &err)
    if err != NULL or key <= 7 or (key >> 32) != 0:
        return -1
    return _field(b, pos, end, no, wire, start, stop, &err)


cdef int _wvalue(const uint8_t* b, int64_t s, int64_t e, uint64_t* value) noexcept nogil:
    """The varint b[s:e]; -1 where its value needs more than 64 bits."""
    cdef const char* err = NULL
    cdef int64_t p = s
    if e - s == 10 and b[s + 9] > 1:
        return -1
    value[0] = <uint64_t>_varint(b, &p, e, &err)
    return -1 if err != NULL else 0


cdef int _datum(const uint8_t* b, int64_t n, int64_t* out) noexcept nogil:
    cdef int64_t pos = 0, s, e
    cdef int no, wire
    cdef uint64_t v
    cdef bint encoded_set = False, encoded = False
    for no in range(_CAFFE_W):
        out[no] = 0
    while pos < n:
        if _wfield(b, &pos, n, &no, &wire, &s, &e) < 0:
            return -1
        if wire == 0 and (1 <= no <= 3 or no == 5 or no == 7):
            if _wvalue(b, s, e, &v) < 0:
                return -1
            if no == 5:
                out[6] = <int32_t>v
                out[0] |= _HAS_LABEL
            elif no == 7:
                encoded_set, encoded = True, v != 0
            else:
                out[2 + no] = <int32_t>v
        elif wire == 2 and no == 4:
            out[0] |= _HAS_DATA
            out[1], out[2] = s, e
    if encoded_set and not encoded:
        out[0] |= _RAW
    return 0


cdef class _Buffers:
    """The bytes of a list of buffers (bytes, memoryviews into an LMDB map, C-contiguous
    uint8 arrays) or of the samples of a contiguous uint8 BatchStorage of 1-D samples, held
    while the object lives: data[i], sizes[i]."""

    cdef Py_buffer* views
    cdef Py_ssize_t held
    cdef const uint8_t** data
    cdef int64_t* sizes
    cdef object storage               # the BatchStorage whose samples these are, or None

    def __cinit__(self, values):
        cdef Py_ssize_t n = _count(values), i
        self.held = 0
        self.views = <Py_buffer*>malloc(max(n, 1) * sizeof(Py_buffer))
        self.data = <const uint8_t**>malloc(max(n, 1) * sizeof(uint8_t*))
        self.sizes = <int64_t*>malloc(max(n, 1) * sizeof(int64_t))
        if self.views == NULL or self.data == NULL or self.sizes == NULL:
            raise MemoryError()
        if isinstance(values, BatchStorage):
            self.storage = values
            _storage_pointers(values, self.data, self.sizes)
            return
        for i in range(n):
            PyObject_GetBuffer(values[i], &self.views[i], PyBUF_SIMPLE)
            self.held += 1
            self.data[i] = <const uint8_t*>self.views[i].buf
            self.sizes[i] = self.views[i].len

    def __dealloc__(self):
        cdef Py_ssize_t i
        for i in range(self.held):
            PyBuffer_Release(&self.views[i])
        free(self.views)
        free(self.data)
        free(self.sizes)


def caffe_datums(list values):
    """An int64 array (n, 7) of (flags, data start, data stop, channels, height, width, label)
    of the Caffe Datum messages `values` (buffers; flags: 1 data, 2 label, 4 `encoded:
    false`), or None where a record needs the Python parser."""
    cdef Py_ssize_t n = len(values), i
    cdef cnp.ndarray out = np.zeros((n, _CAFFE_W), np.int64)
    cdef int64_t* o = <int64_t*>cnp.PyArray_DATA(out)
    cdef _Buffers bufs = _Buffers(values)
    cdef bint ok = True
    with nogil:
        for i in range(n):
            if _datum(bufs.data[i], bufs.sizes[i], o + _CAFFE_W * i) < 0:
                ok = False
                break
    return out if ok else None


def gather_spans(values, starts, stops, BatchStorage out):
    """Copy the bytes values[i][starts[i]:stops[i]] (values: buffers, as `_Buffers` takes
    them) into sample i of the contiguous batch `out`, whose samples have those sizes in
    bytes; one call, without the GIL."""
    cdef Py_ssize_t n = _count(values), i, j
    cdef cnp.ndarray[cnp.int64_t, ndim=1] s = np.ascontiguousarray(starts, np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] e = np.ascontiguousarray(stops, np.int64)
    if out.base is None or out.num_samples != n or s.shape[0] != n or e.shape[0] != n:
        raise ValueError("a contiguous batch and a span per value")
    cdef const int64_t[:, :] shapes = out.shapes
    cdef int64_t itemsize = out.dtype.itemsize, nbytes
    cdef cnp.ndarray[cnp.int64_t, ndim=1] offs = out.offsets
    cdef _Buffers bufs = _Buffers(values)
    cdef int64_t* ss = <int64_t*>cnp.PyArray_DATA(s)
    cdef int64_t* ee = <int64_t*>cnp.PyArray_DATA(e)
    cdef char* dst = out.data
    for i in range(n):
        nbytes = itemsize
        for j in range(out.ndim):
            nbytes *= shapes[i, j]
        if not 0 <= ss[i] <= ee[i] <= bufs.sizes[i] or ee[i] - ss[i] != nbytes:
            raise ValueError(f"span {i} does not fit its record or its sample")
    with nogil:
        for i in range(n):
            memcpy(dst + offs[i], bufs.data[i] + ss[i], <size_t>(ee[i] - ss[i]))


cdef struct C2Config:
    bint image
    int label_type            # 0..4 (4: none)
    int64_t num_labels
    int additional
    bint bbox
    int outputs


cdef enum:
    _U8 = 0
    _F32 = 1
    _I32 = 2
    _I64 = 3
    _M_SPAN = 0               # image bytes: d0 start, d1 stop... (see _c2_record)
    _M_NUMBERS = 1
    _M_SPARSE = 2
    _M_WEIGHTED = 3
    _M_EMPTY = 4
    _MAX_PROTOS = 64          # records with more protos than the reader reads: Python path


cdef int _c2_numbers(const uint8_t* b, int64_t ps, int64_t pe, int field, int dtype,
                     void* out, int64_t* count) noexcept nogil:
    """Count (out NULL) or decode into `out` (as `dtype`) the values of repeated numeric
    field `field` of the TensorProto b[ps:pe] (`Proto.numbers`); -1 on malformed input."""
    cdef int64_t pos = ps, s, e, p, k = 0
    cdef int no, wire
    cdef uint64_t v
    cdef const char* err = NULL
    cdef bint is_float = field == 3
    while pos < pe:
        if _wfield(b, &pos, pe, &no, &wire, &s, &e) < 0:
            return -1
        if no != field:
            continue
        if wire == 2 and is_float:
            if (e - s) % 4:
                return -1
            if out != NULL:
                memcpy(<float*>out + k, b + s, <size_t>(e - s))
            k += (e - s) // 4
        elif wire == 5 and is_float:
            if out != NULL:
                memcpy(<float*>out + k, b + s, 4)
            k += 1
        elif (wire == 2 or wire == 0) and not is_float:
            p = s
            while p < e:
                v = <uint64_t>_varint(b, &p, e, &err)
                if err != NULL:
                    return -1
                if out != NULL:
                    if dtype == _I32:
                        (<int32_t*>out)[k] = <int32_t>v
                    elif dtype == _I64:
                        (<int64_t*>out)[k] = <int64_t>v
                    else:
                        (<float*>out)[k] = <float><int32_t>v
                k += 1
    count[0] = k
    return 0


cdef int _c2_proto(const uint8_t* b, int64_t ps, int64_t pe, uint64_t* data_type,
                   int64_t* dims, int64_t* ndims) noexcept nogil:
    """Validate the TensorProto b[ps:pe]: its data_type and first 3 dims (`Proto`)."""
    cdef int64_t pos = ps, s, e, p
    cdef int no, wire
    cdef uint64_t v
    cdef const char* err = NULL
    data_type[0] = 1
    ndims[0] = 0
    while pos < pe:
        if _wfield(b, &pos, pe, &no, &wire, &s, &e) < 0:
            return -1
        if no == 2 and wire == 0:
            if _wvalue(b, s, e, data_type) < 0:
                return -1
        elif no == 1 and (wire == 0 or wire == 2):
            p = s
            while p < e:
                v = <uint64_t>_varint(b, &p, e, &err)
                if err != NULL:
                    return -1
                if ndims[0] < 3:
                    dims[ndims[0]] = <int64_t>v
                ndims[0] += 1
    return 0


cdef int64_t _c2_span(const uint8_t* b, int64_t ps, int64_t pe, int field, bint first,
                      int64_t* start) noexcept nogil:
    """The (first or last) length-delimited occurrence of `field` of a validated proto:
    its start in `start`, its stop returned (start = stop = 0: none)."""
    cdef int64_t pos = ps, s, e, stop = 0
    cdef int no, wire
    start[0] = 0
    while pos < pe:
        _wfield(b, &pos, pe, &no, &wire, &s, &e)
        if no == field and wire == 2:
            start[0], stop = s, e
            if first:
                break
    return stop


cdef int _c2_out(int64_t* d, int dtype, int ndim, int64_t d0, int64_t d1, int64_t d2, int mode,
                 int proto, int64_t count) noexcept nogil:
    d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = dtype, ndim, d0, d1, d2, mode, proto, count
    return 0


cdef int _c2_sparse(const uint8_t* b, int64_t ps, int64_t pe, int dtype, int64_t count,
                    int64_t n, int64_t* idx) noexcept nogil:
    """The sparse label indices (count of them) of the label proto into idx; -1 when one is
    out of [0, n)."""
    cdef int64_t k, got
    cdef float* f = <float*>idx          # floats decoded into the front, converted backwards
    cdef int32_t* q = <int32_t*>idx
    cdef double x
    if _c2_numbers(b, ps, pe, 3 if dtype == _F32 else 4, dtype, idx, &got) < 0 or got != count:
        return -1
    k = count - 1
    while k >= 0:
        x = f[k] if dtype == _F32 else q[k]
        if not (x > -1.0 and x < n):
            return -1
        idx[k] = <int64_t>x
        k -= 1
    return 0


cdef int _c2_record(const uint8_t* b, int64_t n, const C2Config* cfg, int64_t* desc,
                    void** dst, int64_t* tmp) noexcept nogil:
    """Describe (dst NULL: desc[_C2_W k ...] of each output k, checks included) or fill (into
    dst[k], the sample's buffer of each output, after the description) the outputs of the
    TensorProtos record b[:n] (`Caffe2._parse`); -1 where the Python path must decide."""
    cdef int64_t spans[2 * _MAX_PROTOS]
    cdef uint64_t types[_MAX_PROTOS]
    cdef int64_t dims[3]
    cdef int64_t pos = 0, s, e, nd, cnt, wcnt, k
    cdef int no, wire, nprotos = 0, c = 0, o = 0, start, end, j, dt
    cdef int64_t* d
    while pos < n:
        if _wfield(b, &pos, n, &no, &wire, &s, &e) < 0:
            return -1
        if no == 1 and wire == 2:
            if nprotos == _MAX_PROTOS or _c2_proto(b, s, e, &types[nprotos], dims, &nd) < 0:
                return -1
            spans[2 * nprotos], spans[2 * nprotos + 1] = s, e
            nprotos += 1
    if cfg.image:
        if nprotos < 1:
            return -1
        d = desc
        if dst == NULL:
            _c2_proto(b, spans[0], spans[1], &types[0], dims, &nd)
            if types[0] == 4:
                e = _c2_span(b, spans[0], spans[1], 6, True, &s)
                _c2_out(d, _U8, 1, e - s, 0, 0, _M_SPAN, s, 0)
            elif types[0] == 3:
                if nd < 2 or dims[0] < 0 or dims[1] < 0 or (nd == 3 and dims[2] < 0):
                    return -1
                e = _c2_span(b, spans[0], spans[1], 5, False, &s)
                k = dims[2] if nd == 3 else 1
                if <double>dims[0] * <double>dims[1] * <double>k != <double>(e - s) or \
                        dims[0] * dims[1] * k != e - s:
                    return -1
                _c2_out(d, _U8, 3, dims[0], dims[1], k, _M_SPAN, s, 0)
            else:
                return -1
        else:
            memcpy(dst[0], b + d[6], <size_t>(d[2] * d[3] * d[4] if d[1] == 3 else d[2]))
        c += 1
        o += 1
    if cfg.label_type != 4:
        if nprotos <= c:
            return -1
        d = desc + _C2_W * o
        if dst == NULL:
            if types[c] != 1 and types[c] != 2:
                return -1
            dt = _F32 if types[c] == 1 else _I32
            if _c2_numbers(b, spans[2 * c], spans[2 * c + 1], 3 if dt == _F32 else 4, dt,
                           NULL, &cnt) < 0:
                return -1
            if cfg.label_type == 0:
                if cnt != 1:
                    return -1
                _c2_out(d, dt, 1, 1, 0, 0, _M_NUMBERS, c, 1)
            elif cfg.label_type == 2:
                _c2_out(d, dt, 1, cnt, 0, 0, _M_NUMBERS, c, cnt)
            else:
                if _c2_sparse(b, spans[2 * c], spans[2 * c + 1], dt, cnt, cfg.num_labels,
                              tmp) < 0:
                    return -1
                if cfg.label_type == 1:
                    _c2_out(d, dt, 1, cfg.num_labels, 0, 0, _M_SPARSE, c, cnt)
                else:
                    if nprotos <= c + 1 or _c2_numbers(b, spans[2 * c + 2], spans[2 * c + 3],
                                                       3, _F32, NULL, &wcnt) < 0 or wcnt < cnt:
                        return -1
                    _c2_out(d, _F32, 1, cfg.num_labels, dt, 0, _M_WEIGHTED, c, cnt)
        else:
            dt = <int>d[0]
            if d[5] == _M_NUMBERS:
                _c2_numbers(b, spans[2 * c], spans[2 * c + 1], 3 if dt == _F32 else 4, dt,
                            dst[o], &cnt)
            else:
                _c2_sparse(b, spans[2 * c], spans[2 * c + 1], <int>(d[3] if d[5] == _M_WEIGHTED
                                                                    else dt),
                           d[7], cfg.num_labels, tmp)
                memset(dst[o], 0, <size_t>(4 * cfg.num_labels))     # float32 or int32
                if d[5] == _M_SPARSE:
                    for k in range(d[7]):
                        if dt == _F32:
                            (<float*>dst[o])[tmp[k]] = 1
                        else:
                            (<int32_t*>dst[o])[tmp[k]] = 1
                else:
                    _c2_numbers(b, spans[2 * c + 2], spans[2 * c + 3], 3, _F32,
                                tmp + d[7], &wcnt)
                    for k in range(d[7]):
                        (<float*>dst[o])[tmp[k]] = (<float*>(tmp + d[7]))[k]
        c += 1
        o += 1
    start = c + (1 if cfg.label_type == 1 else 0)
    end = start + cfg.additional
    if cfg.additional and end > nprotos:
        return -1
    for j in range(start, end):
        d = desc + _C2_W * o
        if dst == NULL:
            if types[j] == 1:
                dt = _F32
            elif types[j] == 2:
                dt = _I32
            elif types[j] == 10:
                dt = _I64
            else:
                return -1
            if _c2_numbers(b, spans[2 * j], spans[2 * j + 1], 3 if dt == _F32 else
                           (4 if dt == _I32 else 10), dt, NULL, &cnt) < 0:
                return -1
            _c2_out(d, dt, 1, cnt, 0, 0, _M_NUMBERS, j, cnt)
        else:
            dt = <int>d[0]
            _c2_numbers(b, spans[2 * j], spans[2 * j + 1], 3 if dt == _F32 else
                        (4 if dt == _I32 else 10), dt, dst[o], &cnt)
        o += 1
    if cfg.bbox:
        d = desc + _C2_W * o
        if nprotos == end + 1:
            if dst == NULL:
                if types[end] != 2 or _c2_numbers(b, spans[2 * end], spans[2 * end + 1], 4,
                                                  _I32, NULL, &cnt) < 0 or cnt != 4:
                    return -1
                _c2_out(d, _I32, 1, 4, 0, 0, _M_NUMBERS, end, 4)
            else:
                _c2_numbers(b, spans[2 * end], spans[2 * end + 1], 4, _I32, dst[o], &cnt)
        elif dst == NULL:
            _c2_out(d, _I32, 1, 0, 0, 0, _M_EMPTY, 0, 0)
    return 0


_DTYPES = (np.uint8, np.float32, np.int32, np.int64)


cdef (bint, bint) _c2_kinds(const int64_t* desc, Py_ssize_t n, int outputs, int k) noexcept:
    """(the records' output k has several types or ranks, every record's has one shape), from
    the descriptions `desc` (n, outputs, _C2_W) of `caffe2_records`."""
    cdef const int64_t* first = desc + _C2_W * k
    cdef const int64_t* d
    cdef Py_ssize_t i
    cdef int j
    cdef bint uniform = True
    for i in range(1, n):
        d = desc + _C2_W * (outputs * i + k)
        if d[0] != first[0] or d[1] != first[1]:
            return True, False
        for j in range(2, 2 + <int>first[1]):
            if d[j] != first[j]:
                uniform = False
    return False, uniform


def caffe2_records(list values, bint image, int label_type, int64_t num_labels,
                   int additional, bint bbox, int outputs):
    """The outputs (a contiguous BatchStorage each) of the Caffe2 TensorProtos records
    `values` (bytes) for the reader's arguments, or None where the batch needs the Python
    parser (see above)."""
    cdef Py_ssize_t n = len(values), i, k, j
    cdef C2Config cfg
    cfg.image, cfg.label_type, cfg.num_labels = image, label_type, num_labels
    cfg.additional, cfg.bbox, cfg.outputs = additional, bbox, outputs
    if not 0 <= label_type <= 4 or additional < 0 or outputs != \
            int(image) + int(label_type != 4) + additional + int(bbox):
        raise ValueError("bad Caffe2 reader configuration")
    if num_labels < 0:
        return None
    cdef cnp.ndarray desc = np.zeros((n, max(outputs, 1), _C2_W), np.int64)
    cdef int64_t* dd = <int64_t*>cnp.PyArray_DATA(desc)
    cdef _Buffers bufs = _Buffers(values)
    cdef const uint8_t** data = bufs.data
    cdef int64_t* sizes = bufs.sizes
    cdef void** dst = <void**>malloc(max(n * outputs, 1) * sizeof(void*))
    cdef int64_t* tmp = NULL
    cdef int64_t longest = 0
    cdef bint ok = True
    cdef BatchStorage st
    cdef const int64_t[::1] offs
    cdef int64_t code, ndim
    try:
        if dst == NULL:
            raise MemoryError()
        if label_type == 1 or label_type == 3:      # room for the indices and weights
            for i in range(n):
                longest = max(longest, sizes[i])
            tmp = <int64_t*>malloc((longest + 1) * sizeof(int64_t))
            if tmp == NULL:
                raise MemoryError()
        with nogil:
            for i in range(n):
                if _c2_record(data[i], sizes[i], &cfg, dd + _C2_W * outputs * i, NULL,
                              tmp) < 0:
                    ok = False
                    break
        if not ok:
            return None
        storages = []
        for k in range(outputs):
            mixed, uniform = _c2_kinds(dd, n, outputs, k)
            if mixed:
                return None             # the batch mixes types: the Python path says so
            code, ndim = 2, 1                 # an empty batch: int32 vectors
            if n:
                code, ndim = dd[_C2_W * k], dd[_C2_W * k + 1]
            # a C-contiguous (n, ndim) array: `allocate` checks it in one pass (a strided
            # view costs it 10 us more a batch of 64)
            shapes = [tuple([dd[_C2_W * k + 2 + j] for j in range(ndim)])] * n \
                if uniform and n else np.ascontiguousarray(desc[:, k, 2:2 + ndim])
            st = BatchStorage.allocate(_DTYPES[code], shapes, ndim=ndim)
            offs = st.offsets
            for i in range(n):
                dst[i * outputs + k] = st.data + offs[i]
            storages.append(st)
        with nogil:
            for i in range(n):
                _c2_record(data[i], sizes[i], &cfg, dd + _C2_W * outputs * i,
                           dst + outputs * i, tmp)
        return storages
    finally:
        free(dst)
        free(tmp)


def source_infos(list prefixes, which, bytes blob, starts, stops, numbers=None, present=None,
                 str errors="strict", bint cut_at_nul=False, bint colon=True):
    """The source info of each sample of a batch: prefixes[which[i]], then `numbers[i]` (and
    ":" with `colon`) when `numbers` is given, then blob[starts[i]:stops[i]] (up to its first
    NUL with `cut_at_nul`) decoded as UTF-8 with `errors`; "" where `present[i]` is False.
    The readers' `f"{path}..."` strings of a batch in one call: each string decoded at once
    from its UTF-8 bytes, prefix included (a prefix is whole UTF-8, so the rest decodes as it
    would alone), unless a prefix has no UTF-8 form (a path's undecodable bytes): then joined
    to the decoded rest."""
    cdef cnp.ndarray[cnp.int64_t, ndim=1] w = np.ascontiguousarray(which, np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] s = np.ascontiguousarray(starts, np.int64)
    cdef cnp.ndarray[cnp.int64_t, ndim=1] e = np.ascontiguousarray(stops, np.int64)
    cdef Py_ssize_t n = w.shape[0], i, longest = 0, length, m = len(prefixes), lead = 0
    cdef cnp.ndarray[cnp.int64_t, ndim=1] num = None if numbers is None else \
        np.ascontiguousarray(numbers, np.int64)
    cdef cnp.ndarray[cnp.uint8_t, ndim=1] keep = None if present is None else \
        np.ascontiguousarray(present, np.uint8)
    cdef const char* b = blob
    cdef bytes errs = errors.encode()
    cdef const char* text
    cdef char* buf
    cdef char* at
    cdef int head
    cdef list encoded
    cdef bytes prefix
    if s.shape[0] != n or e.shape[0] != n or (num is not None and num.shape[0] != n) or \
            (keep is not None and keep.shape[0] != n):
        raise ValueError("one prefix index, span, number and flag per sample")
    for i in range(n):
        if not 0 <= w[i] < m or not 0 <= s[i] <= e[i] <= len(blob):
            raise ValueError(f"sample {i}: no such prefix, or its span is outside the blob")
        longest = max(longest, e[i] - s[i])
    try:
        encoded = [p.encode() for p in prefixes]
        lead = max([len(p) for p in encoded], default=0)
    except UnicodeEncodeError:
        encoded = None
    buf = <char*>malloc(lead + longest + 32)
    if buf == NULL:
        raise MemoryError()
    out = [""] * n
    try:
        for i in range(n):
            if keep is not None and not keep[i]:
                continue
            at = buf
            if encoded is not None:
                prefix = encoded[w[i]]
                memcpy(buf, <const char*>prefix, len(prefix))
                at = buf + len(prefix)
            head = 0 if num is None else snprintf(at, 32, "%lld:" if colon else "%lld",
                                                  <long long>num[i])
            length = e[i] - s[i]
            if cut_at_nul:
                text = <const char*>memchr(b + s[i], 0, <size_t>length)
                if text != NULL:
                    length = text - (b + s[i])
            memcpy(at + head, b + s[i], <size_t>length)
            decoded = PyUnicode_DecodeUTF8(buf, at - buf + head + length, errs)
            out[i] = decoded if encoded is not None else prefixes[w[i]] + decoded
        return out
    finally:
        free(buf)
