"""NumPy's own elementwise loops run on the thread pool, for the arithmetic operator.

A ufunc's inner loop for one type signature (`loop_index`) is a plain C function; `run`
calls it on chunks of flat, contiguous operands from the pool's threads without the GIL, so a
batch's `x + y` or `x * 0.5` gives exactly what the ufunc gives, on every thread.  Operands
are C-contiguous arrays of the output's size or single values (step 0), all of the loop's
types.  Chunks of CHUNK elements keep the work items even.  A float32 add, subtract or multiply
whose output is larger than the last-level cache (`_STREAM_BYTES`) runs arith_stream.h's loop
instead, which writes the same values with streaming stores.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from dali._ext.tensor_storage cimport BatchStorage
from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()


cdef extern from "ufunc_types.h" nogil:
    const char* ufunc_loop_types(object ufunc)

cdef extern from "arith_stream.h" nogil:
    enum:
        STREAM_OFF "arith_stream::OFF"
        STREAM_ADD "arith_stream::ADD"
        STREAM_SUBTRACT "arith_stream::SUBTRACT"
        STREAM_MULTIPLY "arith_stream::MULTIPLY"
    const bint stream_available "arith_stream::available"
    void stream_run "arith_stream::run"(
        int op, const float* a, int64_t sa, const float* b, int64_t sb, float* out, int64_t n)
    void stream_fence "arith_stream::fence"()
    void stream_copy "arith_stream::copy"(const char* src, char* dst, int64_t nbytes)

cdef extern from "arith_load.h" namespace "arith_load" nogil:
    bint load(int src_num, int dst_num, const char* src, int64_t period, int64_t start,
              int64_t n, char* out)

cdef enum:
    MAX_ARGS = 4
    CHUNK = 1 << 15

cdef double _NS_PER_ELEMENT = 0.5
# Outputs larger than this are written with streaming stores where `run` can (arith_stream.h):
# with their operands they no longer fit a last-level cache (32 MiB).
cdef Py_ssize_t _STREAM_BYTES = 16 << 20
_STREAM_OPS = {np.add: STREAM_ADD, np.subtract: STREAM_SUBTRACT, np.multiply: STREAM_MULTIPLY}


def loop_index(cnp.ufunc ufunc, dtype, out_dtype=None):
    """Index of `ufunc`'s inner loop whose inputs are all `dtype` and output `out_dtype`
    (default: `dtype`), or -1."""
    cdef int num = np.dtype(dtype).num, k, j
    cdef int out_num = num if out_dtype is None else np.dtype(out_dtype).num
    cdef const char* types = ufunc_loop_types(ufunc)
    cdef bint ok
    if ufunc.nout != 1 or ufunc.nargs > MAX_ARGS:
        return -1
    for k in range(ufunc.ntypes):
        ok = True
        for j in range(ufunc.nargs):
            ok = ok and types[k * ufunc.nargs + j] == (out_num if j == ufunc.nin else num)
        if ok:
            return k
    return -1


# NumPy's loops need no GIL; its pxd declares them without nogil.
ctypedef void (*loop_fn)(char** args, cnp.npy_intp* n, cnp.npy_intp* steps,
                         void* data) noexcept nogil


cdef struct Job:
    loop_fn fn
    void* data
    int nargs
    char* args[MAX_ARGS]
    cnp.npy_intp steps[MAX_ARGS]
    cnp.npy_intp n
    int stream_op               # STREAM_* to run arith_stream.h's loop instead of fn, or OFF


cdef void _run_job(void* jobs, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>jobs) + i
    if j.stream_op == STREAM_OFF:
        j.fn(j.args, &j.n, j.steps, j.data)
        return
    stream_run(j.stream_op, <const float*>j.args[0], j.steps[0] != 0,
               <const float*>j.args[1], j.steps[1] != 0, <float*>j.args[2], j.n)
    stream_fence()


def run(ThreadPool pool, cnp.ufunc ufunc, int index, list operands, cnp.ndarray out):
    """out[...] = ufunc(*operands) with the loop `index`, in chunks on `pool`.

    `out` must be C-contiguous; each operand a C-contiguous array of out's size or of size 1
    (broadcast), every one of the loop's types (checked).
    """
    cdef Py_ssize_t n = out.size, k, start, count, size
    cdef int nin = ufunc.nin, j
    cdef cnp.ndarray a
    cdef char* base
    if not 0 <= index < ufunc.ntypes or len(operands) != nin:
        raise ValueError("a loop index and one operand per input are needed")
    arrays = [*operands, out]
    for j in range(nin + 1):
        a = arrays[j]
        if cnp.PyArray_TYPE(a) != ufunc_loop_types(ufunc)[index * ufunc.nargs + j]:
            raise TypeError(f"operand {j} has type {a.dtype}, not the loop's")
        if not a.flags.c_contiguous or a.size not in (1, n):
            raise ValueError(f"operand {j} must be C-contiguous, of size 1 or {n}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")
    cdef int stream_op = STREAM_OFF
    if (stream_available and out.nbytes > _STREAM_BYTES
            and all(a.dtype == np.float32 for a in arrays)):
        stream_op = _STREAM_OPS.get(ufunc, STREAM_OFF)
    keep = []
    count = (n + CHUNK - 1) // CHUNK
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    for k in range(count):
        start = k * CHUNK
        jobs[k].fn = <loop_fn>ufunc.functions[index]
        jobs[k].data = ufunc.data[index]
        jobs[k].nargs = nin + 1
        jobs[k].n = min(CHUNK, n - start)
        jobs[k].stream_op = stream_op
        for j in range(nin + 1):
            a = arrays[j]
            base = <char*>cnp.PyArray_DATA(a)
            size = a.itemsize
            if a.size == n and n != 1:
                jobs[k].steps[j] = size
                jobs[k].args[j] = base + start * size
            else:
                jobs[k].steps[j] = 0
                jobs[k].args[j] = base
    run_largest_first(pool, _run_job, jobs, [jobs[k].n for k in range(count)],
                      _NS_PER_ELEMENT)


# -- expressions of several operations --------------------------------------------------------
#
# `run_program` computes a whole expression tree chunk by chunk: each work item takes
# PROGRAM_SPAN elements and, PROGRAM_CHUNK of them at a time, runs every step's loop on them,
# the intermediate values in a scratch buffer of the item's own (a few chunks: they stay in
# cache), so no temporary of the batch's size is made.  Every step is one ufunc loop whose
# operands and result all have one type, the same for the whole program, so each value is
# what that ufunc gives elementwise.  An output larger than _STREAM_BYTES is written with
# streaming stores (arith_stream.h): by arith_stream's own loop when the last step is a float32
# add, subtract or multiply, else the last step's results go to one more scratch chunk, copied
# out.

cdef enum:
    PROGRAM_CHUNK = 1 << 10     # elements computed step after step (in L1)
    PROGRAM_SPAN = 1 << 16      # elements of one work item
    C_MAX_STEPS = 32
    C_INPUT = 0         # an input: flat, the output's size (or one value)
    C_CONST = 1         # one value
    C_TEMP = 2          # a scratch chunk
    C_OUT = 3           # the output

# The operand kinds of `run_program`'s steps, and its most steps.
SRC_INPUT, SRC_CONST, SRC_TEMP, SRC_OUT = C_INPUT, C_CONST, C_TEMP, C_OUT
MAX_STEPS = C_MAX_STEPS


cdef struct Step:
    loop_fn fn
    void* data
    int nargs                   # inputs + 1 (the result, last)
    int kind[MAX_ARGS]
    int index[MAX_ARGS]


cdef struct Program:
    Step steps[C_MAX_STEPS]
    int nsteps
    int ntemps
    Py_ssize_t item             # bytes per element
    Py_ssize_t n                # elements of the output
    char* inputs[C_MAX_STEPS * MAX_ARGS]
    bint input_flat[C_MAX_STEPS * MAX_ARGS]
    char* consts[C_MAX_STEPS * MAX_ARGS]
    char* out
    bint stream                 # run_program: the results go out through arith_stream's copy
    int stream_op               # ... or, STREAM_* of the last step, through arith_stream's loop
    int ninputs
    int num                     # the program's NumPy type number
    int out_num                 # the output's (the last step's result; run_samples: may differ)
    Py_ssize_t out_item         # bytes per output element
    int in_num[C_MAX_STEPS * MAX_ARGS]      # run_samples: each input's type number


cdef struct ProgramJob:
    Program* prog
    Py_ssize_t start
    cnp.npy_intp n
    bint failed


cdef void _run_program_job(void* jobs, int64_t i) noexcept nogil:
    cdef ProgramJob* job = (<ProgramJob*>jobs) + i
    cdef Program* p = job.prog
    cdef Py_ssize_t item = p.item, start, end = job.start + job.n
    cdef cnp.npy_intp n
    cdef char* scratch = NULL
    cdef char* result = NULL
    cdef char* ins[C_MAX_STEPS * MAX_ARGS]
    cdef cnp.npy_intp in_steps[C_MAX_STEPS * MAX_ARGS]
    cdef char* args[MAX_ARGS]
    cdef cnp.npy_intp steps[MAX_ARGS]
    cdef bint copy = p.stream and p.stream_op == STREAM_OFF
    cdef int j
    if p.ntemps or copy:
        scratch = <char*>malloc((p.ntemps + copy) * PROGRAM_CHUNK * item)
        if scratch == NULL:
            job.failed = True
            return
        result = scratch + p.ntemps * PROGRAM_CHUNK * item
    start = job.start
    while start < end:
        n = min(<Py_ssize_t>PROGRAM_CHUNK, end - start)
        for j in range(p.ninputs):
            if p.input_flat[j]:
                ins[j], in_steps[j] = p.inputs[j] + start * item, item
            else:
                ins[j], in_steps[j] = p.inputs[j], 0
        if p.stream_op != STREAM_OFF:
            _run_chunk(p, p.nsteps - 1, ins, in_steps, NULL, scratch, n)
            _step_args(p, &p.steps[p.nsteps - 1], ins, in_steps, NULL, scratch, args, steps)
            stream_run(p.stream_op, <const float*>args[0], steps[0] != 0,
                       <const float*>args[1], steps[1] != 0,
                       <float*>(p.out + start * p.out_item), n)
        elif copy:
            _run_chunk(p, p.nsteps, ins, in_steps, result, scratch, n)
            stream_copy(result, p.out + start * p.out_item, n * p.out_item)
        else:
            _run_chunk(p, p.nsteps, ins, in_steps, p.out + start * p.out_item, scratch, n)
        start += n
    if p.stream:
        stream_fence()
    free(scratch)


cdef void _run_chunk(Program* p, int nsteps, char** ins, cnp.npy_intp* in_steps, char* out,
                     char* scratch, cnp.npy_intp n) noexcept nogil:
    """The first `nsteps` steps of `p` on n <= PROGRAM_CHUNK elements: input j at ins[j]
    (stride in_steps[j]), the result at `out`."""
    cdef char* args[MAX_ARGS]
    cdef cnp.npy_intp steps[MAX_ARGS]
    cdef Step* s
    cdef int k
    for k in range(nsteps):
        s = &p.steps[k]
        _step_args(p, s, ins, in_steps, out, scratch, args, steps)
        s.fn(args, &n, steps, s.data)


cdef inline void _step_args(Program* p, Step* s, char** ins, cnp.npy_intp* in_steps, char* out,
                            char* scratch, char** args, cnp.npy_intp* steps) noexcept nogil:
    """Where step `s` reads its operands and writes its result, and their strides."""
    cdef Py_ssize_t item = p.item
    cdef int j, idx
    for j in range(s.nargs):
        idx = s.index[j]
        if s.kind[j] == C_INPUT:
            args[j], steps[j] = ins[idx], in_steps[idx]
        elif s.kind[j] == C_CONST:
            args[j], steps[j] = p.consts[idx], 0
        elif s.kind[j] == C_TEMP:
            args[j], steps[j] = scratch + idx * PROGRAM_CHUNK * item, item
        else:
            args[j], steps[j] = out, p.out_item


cdef int _set_steps(Program* p, list steps, int ntemps, Py_ssize_t n_inputs,
                    Py_ssize_t n_consts) except -1:
    """Check `steps` (see `run_program`) and store them in `p` (p.num and p.out_num set: the
    last step's result has type out_num, every other type is num)."""
    cdef int s, j, nin, num = p.num, want
    cdef cnp.ufunc uf
    if not 0 < len(steps) <= C_MAX_STEPS or not 0 <= ntemps <= C_MAX_STEPS:
        raise ValueError(f"a program has 1 to {C_MAX_STEPS} steps")
    if n_inputs > C_MAX_STEPS * MAX_ARGS or n_consts > C_MAX_STEPS * MAX_ARGS:
        raise ValueError("too many operands")
    p.nsteps, p.ntemps, p.ninputs = len(steps), ntemps, n_inputs
    for s, (uf, index, operands, result) in enumerate(steps):
        nin = uf.nin
        if uf.nout != 1 or len(operands) != nin or not 0 <= index < uf.ntypes:
            raise ValueError(f"step {s}: one operand per input and a loop index are needed")
        for j in range(nin + 1):
            want = p.out_num if j == nin and s == len(steps) - 1 else num
            if ufunc_loop_types(uf)[index * uf.nargs + j] != want:
                raise TypeError(f"step {s}: the loop's types must all be the program's")
        p.steps[s].fn = <loop_fn>uf.functions[index]
        p.steps[s].data = uf.data[index]
        p.steps[s].nargs = nin + 1
        for j, (kind, idx) in enumerate([*operands, result]):
            if kind == C_INPUT and not 0 <= idx < n_inputs or \
                    kind == C_CONST and not 0 <= idx < n_consts or \
                    kind == C_TEMP and not 0 <= idx < ntemps or \
                    kind == C_OUT and j != nin or not 0 <= kind <= C_OUT:
                raise ValueError(f"step {s}: operand {j} refers to nothing")
            if j == nin and kind not in (C_TEMP, C_OUT):
                raise ValueError(f"step {s}: a result goes to scratch or out")
            p.steps[s].kind[j], p.steps[s].index[j] = kind, idx
    if steps[len(steps) - 1][3][0] != C_OUT:
        raise ValueError("the last step's result must be out")
    return 0


cdef int _set_consts(Program* p, list consts) except -1:
    cdef cnp.ndarray a
    for j, a in enumerate(consts):
        if cnp.PyArray_TYPE(a) != p.num or a.size != 1:
            raise ValueError(f"constant {j} must be one value of out's type")
        p.consts[j] = <char*>cnp.PyArray_DATA(a)
    return 0


def run_program(ThreadPool pool, list steps, int ntemps, list inputs, list consts,
                cnp.ndarray out):
    """Evaluate an expression program into `out` in chunks on `pool`.

    `steps` are (ufunc, loop index, operands, result) in order; an operand or result is
    (kind, index): SRC kinds 0 input (`inputs[index]`), 1 constant (`consts[index]`, one
    value), 2 scratch chunk `index` (< ntemps), 3 `out` (the last step's result).  Every
    array, and every type of every step's loop, must be out's dtype (checked); inputs are
    C-contiguous of out's size or of size 1, `out` C-contiguous.
    """
    cdef Program* p
    cdef ProgramJob* jobs
    cdef Py_ssize_t n = out.size, count, k
    cdef int j, num = cnp.PyArray_TYPE(out)
    cdef cnp.ndarray a
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be C-contiguous and writeable")
    keep = [out, *inputs, *consts]
    p = <Program*>job_array(1, sizeof(Program), keep)
    p.num, p.item, p.n = num, out.itemsize, n
    p.out_num, p.out_item = num, out.itemsize
    _set_steps(p, steps, ntemps, len(inputs), len(consts))
    _set_consts(p, consts)
    p.out = <char*>cnp.PyArray_DATA(out)
    p.stream = stream_available and out.nbytes > _STREAM_BYTES
    p.stream_op = STREAM_OFF
    if p.stream and num == cnp.NPY_FLOAT32:
        p.stream_op = _STREAM_OPS.get(steps[len(steps) - 1][0], STREAM_OFF)
    for j, a in enumerate(inputs):
        if cnp.PyArray_TYPE(a) != num or not a.flags.c_contiguous or a.size not in (1, n):
            raise ValueError(f"input {j} must be C-contiguous of out's type and size (or 1)")
        p.inputs[j] = <char*>cnp.PyArray_DATA(a)
        p.input_flat[j] = a.size == n and n != 1
    count = (n + PROGRAM_SPAN - 1) // PROGRAM_SPAN
    if count == 0:
        return
    jobs = <ProgramJob*>job_array(count, sizeof(ProgramJob), keep)
    for k in range(count):
        jobs[k].prog = p
        jobs[k].start = k * PROGRAM_SPAN
        jobs[k].n = min(<Py_ssize_t>PROGRAM_SPAN, n - k * PROGRAM_SPAN)
        jobs[k].failed = False
    run_largest_first(pool, _run_program_job, jobs, [jobs[k].n for k in range(count)],
                      _NS_PER_ELEMENT * len(steps))
    for k in range(count):
        if jobs[k].failed:
            raise MemoryError()


# -- the program sample by sample -------------------------------------------------------------
#
# `run_samples` runs a program on batches whose samples are not one flat block of the output's
# elements: samples stored apart (views, a conditional's branch), operands broadcast per sample
# (one value, or an inner pattern such as one value per channel), operands of another type
# than the program's (converted chunk by chunk as they are read).  Work items are spans of
# PROGRAM_SPAN elements of one sample.

cdef struct SampleJob:
    Program* prog
    char** ins                  # input j of sample s: ins[s * prog.ninputs + j]
    int64_t* period             # element k of a sample reads element k % period of its input
    char** outs                 # each sample's output
    const int64_t* sizes        # elements of each sample
    Py_ssize_t count            # samples (consecutive; 1 for a span of a large one)
    Py_ssize_t start            # the span of the sample; n < 0: the whole samples
    cnp.npy_intp n
    bint failed


cdef void _run_sample_job(void* jobs, int64_t i) noexcept nogil:
    cdef SampleJob* job = (<SampleJob*>jobs) + i
    cdef Program* p = job.prog
    cdef char* scratch = <char*>malloc((p.ntemps + p.ninputs) * PROGRAM_CHUNK * p.item)
    cdef Py_ssize_t s, nin = p.ninputs
    if scratch == NULL:
        job.failed = True
        return
    for s in range(job.count):
        if job.n >= 0:
            _run_sample_part(p, job.ins + s * nin, job.period + s * nin, job.outs[s],
                             job.sizes[s], job.start, job.start + job.n, scratch)
        else:
            _run_sample_part(p, job.ins + s * nin, job.period + s * nin, job.outs[s],
                             job.sizes[s], 0, job.sizes[s], scratch)
    free(scratch)


cdef void _run_sample_part(Program* p, char** src, int64_t* period, char* out, Py_ssize_t size,
                           Py_ssize_t start, Py_ssize_t end, char* scratch) noexcept nogil:
    """Elements [start, end) of one sample of `size` elements."""
    cdef Py_ssize_t item = p.item, chunk_bytes = PROGRAM_CHUNK * p.item
    cdef cnp.npy_intp n
    cdef char* ins[C_MAX_STEPS * MAX_ARGS]
    cdef cnp.npy_intp in_steps[C_MAX_STEPS * MAX_ARGS]
    cdef int j
    cdef int64_t per
    while start < end:
        n = min(<Py_ssize_t>PROGRAM_CHUNK, end - start)
        for j in range(p.ninputs):
            per = period[j]
            if p.in_num[j] == p.num and per == size:
                ins[j], in_steps[j] = src[j] + start * item, item
            elif p.in_num[j] == p.num and per == 1:
                ins[j], in_steps[j] = src[j], 0
            else:
                ins[j], in_steps[j] = scratch + (p.ntemps + j) * chunk_bytes, item
                load(p.in_num[j], p.num, src[j], per, start, n, ins[j])
        _run_chunk(p, p.nsteps, ins, in_steps, out + start * p.out_item, scratch, n)
        start += n


cdef inline bint _known_type(int num) noexcept:
    return 0 <= num <= cnp.NPY_DOUBLE and num != cnp.NPY_LONGDOUBLE


cdef bint _periods(BatchStorage st, BatchStorage out, Py_ssize_t j, Py_ssize_t nin,
                   int64_t* period, char** ptr) except -1:
    """Fill input j's column of `period` and `ptr`; False when a sample of `st` is neither
    the output sample's shape, one value, nor an inner pattern of it (trailing dimensions equal
    to the output's, ones before), or is not C-contiguous."""
    cdef Py_ssize_t i, d, k, nd_o = out.ndim, nd_i = st.ndim, pad = out.ndim - st.ndim
    cdef cnp.ndarray in_shapes = np.ascontiguousarray(st.shapes)
    cdef cnp.ndarray out_shapes = np.ascontiguousarray(out.shapes)
    cdef cnp.ndarray offs
    cdef const int64_t* si = <const int64_t*>cnp.PyArray_DATA(in_shapes)
    cdef const int64_t* so = <const int64_t*>cnp.PyArray_DATA(out_shapes)
    cdef const int64_t* op = NULL
    cdef int64_t vol
    cdef list samples = None
    cdef cnp.ndarray a
    if pad < 0:
        return False
    if st.base is not None:
        offs = np.ascontiguousarray(st.offsets)
        op = <const int64_t*>cnp.PyArray_DATA(offs)
    else:
        samples = st.samples()
    for i in range(st.num_samples):
        vol = 1
        k = nd_i          # the first dimension (of the input's) that is not 1
        for d in range(nd_i):
            vol *= si[i * nd_i + d]
            if k == nd_i and si[i * nd_i + d] != 1:
                k = d
        for d in range(k, nd_i):
            if si[i * nd_i + d] != so[i * nd_o + pad + d]:
                return False
        period[i * nin + j] = vol
        if op != NULL:
            ptr[i * nin + j] = st.data + op[i]
        else:
            a = <cnp.ndarray>samples[i]
            if not cnp.PyArray_IS_C_CONTIGUOUS(a):
                return False
            ptr[i * nin + j] = <char*>cnp.PyArray_DATA(a)
    return True


def run_samples(ThreadPool pool, list steps, int ntemps, list inputs, list consts,
                BatchStorage out, dtype=None):
    """Evaluate an expression program into the contiguous batch `out`, sample by sample, on
    `pool`; False (nothing done) when an input cannot be read that way.

    `steps`, `ntemps` and `consts` are as in `run_program`, of the type `dtype` (default: out's)
    but the last step's result, which is out's (a comparison's bool); `inputs` are
    BatchStorages of out's number of samples, of any supported type (converted to `dtype` as
    C++ converts); each sample has the output sample's shape, holds one value, or is
    an inner pattern of it (shape (1, 1, C) for an (H, W, C) sample), and is C-contiguous.
    """
    cdef Program* p
    cdef SampleJob* jobs
    cdef Py_ssize_t nin = len(inputs), ns = out.num_samples, i, j, k, count = 0, start
    work = np.dtype(out.dtype if dtype is None else dtype)
    cdef int num = work.num, out_num = out.dtype.num
    cdef BatchStorage st
    cdef cnp.ndarray periods, ptrs, sizes, outs
    cdef int64_t* per
    cdef char** ptr
    cdef char** outp
    cdef const int64_t* sz
    cdef Py_ssize_t group
    if out.base is None:
        raise ValueError("out must be contiguous storage")
    if not _known_type(num) or not _known_type(out_num):
        return False
    keep = [out, *inputs, *consts]
    p = <Program*>job_array(1, sizeof(Program), keep)
    p.num, p.item = num, work.itemsize
    p.out_num, p.out_item = out_num, out.dtype.itemsize
    p.stream, p.stream_op = False, STREAM_OFF
    _set_steps(p, steps, ntemps, nin, len(consts))
    _set_consts(p, consts)
    periods = np.empty((ns, nin), np.int64)
    ptrs = np.empty((ns, nin), np.uintp)
    per = <int64_t*>cnp.PyArray_DATA(periods)
    ptr = <char**>cnp.PyArray_DATA(ptrs)
    for j in range(nin):
        st = <BatchStorage>inputs[j]
        if st.num_samples != ns:
            raise ValueError(f"input {j} has {st.num_samples} samples, out has {ns}")
        p.in_num[j] = st.dtype.num
        if not _known_type(p.in_num[j]) or not _periods(st, out, j, nin, per, ptr):
            return False
    sizes = np.ascontiguousarray(np.prod(out.shapes, axis=1, dtype=np.int64))
    outs = np.asarray(out.offsets, np.uintp) + <size_t>out.data
    keep += [periods, ptrs, sizes, outs]
    sz = <const int64_t*>cnp.PyArray_DATA(sizes)
    outp = <char**>cnp.PyArray_DATA(outs)
    # Large samples in spans of PROGRAM_SPAN elements, small consecutive ones grouped.
    group = 0
    for i in range(ns):
        if sz[i] >= PROGRAM_SPAN:
            count += (sz[i] + PROGRAM_SPAN - 1) // PROGRAM_SPAN + (group > 0)
            group = 0
        else:
            group += sz[i]
            if group >= PROGRAM_SPAN:
                count += 1
                group = 0
    count += group > 0
    if count == 0:
        return True
    jobs = <SampleJob*>job_array(count, sizeof(SampleJob), keep)
    k = 0
    i = 0
    while i < ns:
        jobs[k].prog = p
        jobs[k].ins = ptr + i * nin
        jobs[k].period = per + i * nin
        jobs[k].outs = outp + i
        jobs[k].sizes = sz + i
        jobs[k].failed = False
        if sz[i] >= PROGRAM_SPAN:
            start = 0
            while start < sz[i]:
                if start:
                    jobs[k] = jobs[k - 1]
                jobs[k].count = 1
                jobs[k].start = start
                jobs[k].n = min(<Py_ssize_t>PROGRAM_SPAN, sz[i] - start)
                start += PROGRAM_SPAN
                k += 1
            i += 1
            continue
        group = 0
        jobs[k].count, jobs[k].start, jobs[k].n = 0, 0, -1
        while i < ns and sz[i] < PROGRAM_SPAN and group < PROGRAM_SPAN:
            group += sz[i]
            jobs[k].count += 1
            i += 1
        if group == 0:
            continue            # empty samples only: the job is not counted, reused
        k += 1
    run_largest_first(pool, _run_sample_job, jobs,
                      [jobs[k].n if jobs[k].n >= 0 else
                       sum([jobs[k].sizes[j] for j in range(jobs[k].count)])
                       for k in range(count)], _NS_PER_ELEMENT * len(steps))
    for k in range(count):
        if jobs[k].failed:
            raise MemoryError()
    return True
