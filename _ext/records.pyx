"""tf.train.Example records parsed in C without the GIL (readers.tfrecord), without TensorFlow
or protobuf.

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
of each wanted feature's value list (and a bytes list's first value); `numbers` decodes the
float or int64 values of one feature over the batch.  `recordio_spans` locates the labels and
the image of MXNet RecordIO records (readers.mxnet)."""

cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy

cnp.import_array()

cdef enum:
    _W = 5                    # values per feature in the spans


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


cdef int _pointers(list records, const uint8_t** data, int64_t* sizes) except -1:
    """data[i], sizes[i] = the bytes of records[i] (C-contiguous uint8 arrays; else ValueError)."""
    cdef Py_ssize_t i
    cdef cnp.ndarray r
    for i in range(len(records)):
        r = records[i]
        if r.dtype != np.uint8 or not r.flags.c_contiguous:
            raise ValueError(f"record {i} must be a C-contiguous uint8 array")
        data[i] = <const uint8_t*>cnp.PyArray_DATA(r)
        sizes[i] = r.size
    return 0


def example_spans(list records, list names):
    """(spans, None): an int64 array (len(records), len(names), 5) of (kind, start, stop,
    first start, first stop) of each wanted feature in each record: the span of its value list
    (kind 1 bytes, 2 float, 3 int64; 0: not in the record) and, for bytes, of its first value
    (first stop -1: none); or (None, (index, message)) for the first malformed record.
    `records` are C-contiguous uint8 arrays (whole framed records), `names` bytes."""
    cdef Py_ssize_t n = len(records), i
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
                      const char** err) noexcept nogil:
    """Decode the values of the FloatList (kind 2, into float32) or Int64List (kind 3, into
    int64) message b[pos:end], packed or not, into out; returns their count, -1 on error."""
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
            memcpy(f + count, b + s, <size_t>(e - s))
            count += (e - s) // 4
        elif kind == 3 and wire == 0:
            p = s
            q[count] = _varint(b, &p, e, err)
            if err[0] != NULL:
                return -1
            count += 1
        elif kind == 3 and wire == 2:
            p = s
            while p < e:
                q[count] = _varint(b, &p, e, err)
                if err[0] != NULL:
                    return -1
                count += 1
        else:
            err[0] = "a value of the wrong wire type"
            return -1
    return count


def numbers(list records, spans, int kind):
    """(values, counts, None): the values of one numeric feature in each record, back to back
    (float32 for kind 2, int64 for kind 3) and how many each record has (records whose span
    has another kind count 0), from `spans` (n, 5) of `example_spans`; or (None, None,
    (index, message)) for a malformed list."""
    cdef Py_ssize_t n = len(records), i
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
    cdef char* out = <char*>cnp.PyArray_DATA(values)
    cdef Py_ssize_t esize = 4 if kind == 2 else 8
    cdef const char* err = NULL
    cdef Py_ssize_t failed = -1
    cdef cnp.ndarray r
    try:
        if data == NULL:
            raise MemoryError()
        for i in range(n):
            r = records[i]
            if r.dtype != np.uint8 or not r.flags.c_contiguous or sp[i, 2] > r.size or \
                    sp[i, 1] < 0 or sp[i, 1] > sp[i, 2]:
                raise ValueError(f"record {i}: not a uint8 record holding its span")
            data[i] = <const uint8_t*>cnp.PyArray_DATA(r)
        with nogil:
            for i in range(n):
                if sp[i, 0] != kind:
                    continue
                got = _numbers(data[i], sp[i, 1], sp[i, 2], kind, out + total * esize, &err)
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


def recordio_spans(list records):
    """MXNet RecordIO records of one part (continuation flag 0) parsed in C: an int64 array
    (n, 4) of (image start, image stop, label start, label count) per record (labels: float32
    from `label start`; count 0: the one label of the header, at byte 12), or -1 in the first
    column for a record split in parts or malformed (`dali.ops.readers.mxnet` parses those and
    says what is wrong)."""
    cdef Py_ssize_t n = len(records), i
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
