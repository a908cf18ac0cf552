"""NumPy's own elementwise loops run on the thread pool, for the arithmetic operator.

A ufunc's inner loop for one type signature (`loop_index`) is a plain C function; `run`
calls it on chunks of flat, contiguous operands from the pool's threads without the GIL, so a
batch's `x + y` or `x * 0.5` gives exactly what the ufunc gives, on every thread.  Operands
are C-contiguous arrays of the output's size or single values (step 0), all of the loop's
types.  Chunks of CHUNK elements keep the work items even.
"""
cimport numpy as cnp
import numpy as np

from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from dali._ext.thread_pool cimport ThreadPool, job_array, run_largest_first

cnp.import_array()

cdef enum:
    MAX_ARGS = 4
    CHUNK = 1 << 15

cdef double _NS_PER_ELEMENT = 0.5


def loop_index(cnp.ufunc ufunc, dtype):
    """Index of `ufunc`'s inner loop whose inputs and output are all `dtype`, or -1."""
    cdef int num = np.dtype(dtype).num, k, j
    cdef bint ok
    if ufunc.nout != 1 or ufunc.nargs > MAX_ARGS:
        return -1
    for k in range(ufunc.ntypes):
        ok = True
        for j in range(ufunc.nargs):
            ok = ok and ufunc.types[k * ufunc.nargs + j] == num
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


cdef void _run_job(void* jobs, int64_t i) noexcept nogil:
    cdef Job* j = (<Job*>jobs) + i
    j.fn(j.args, &j.n, j.steps, j.data)


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
        if cnp.PyArray_TYPE(a) != ufunc.types[index * ufunc.nargs + j]:
            raise TypeError(f"operand {j} has type {a.dtype}, not the loop's")
        if not a.flags.c_contiguous or a.size not in (1, n):
            raise ValueError(f"operand {j} must be C-contiguous, of size 1 or {n}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")
    keep = []
    count = (n + CHUNK - 1) // CHUNK
    cdef Job* jobs = <Job*>job_array(count, sizeof(Job), keep)
    for k in range(count):
        start = k * CHUNK
        jobs[k].fn = <loop_fn>ufunc.functions[index]
        jobs[k].data = ufunc.data[index]
        jobs[k].nargs = nin + 1
        jobs[k].n = min(CHUNK, n - start)
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
# what that ufunc gives elementwise.

cdef enum:
    PROGRAM_CHUNK = 1 << 12     # elements computed step after step (in L1)
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
    if p.ntemps:
        scratch = <char*>malloc(p.ntemps * PROGRAM_CHUNK * item)
        if scratch == NULL:
            job.failed = True
            return
    start = job.start
    while start < end:
        n = min(<Py_ssize_t>PROGRAM_CHUNK, end - start)
        _run_chunk(p, scratch, start, n)
        start += n
    free(scratch)


cdef void _run_chunk(Program* p, char* scratch, Py_ssize_t start,
                     cnp.npy_intp n) noexcept nogil:
    """Every step of `p` on the elements [start, start + n), n <= PROGRAM_CHUNK."""
    cdef Py_ssize_t item = p.item
    cdef char* args[MAX_ARGS]
    cdef cnp.npy_intp steps[MAX_ARGS]
    cdef Step* s
    cdef int k, j, idx
    for k in range(p.nsteps):
        s = &p.steps[k]
        for j in range(s.nargs):
            idx = s.index[j]
            if s.kind[j] == C_INPUT:
                if p.input_flat[idx]:
                    args[j], steps[j] = p.inputs[idx] + start * item, item
                else:
                    args[j], steps[j] = p.inputs[idx], 0
            elif s.kind[j] == C_CONST:
                args[j], steps[j] = p.consts[idx], 0
            elif s.kind[j] == C_TEMP:
                args[j], steps[j] = scratch + idx * PROGRAM_CHUNK * item, item
            else:
                args[j], steps[j] = p.out + start * item, item
        s.fn(args, &n, steps, s.data)


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
    cdef int s, j, nin, num = cnp.PyArray_TYPE(out)
    cdef cnp.ufunc uf
    cdef cnp.ndarray a
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be C-contiguous and writeable")
    if not 0 < len(steps) <= C_MAX_STEPS or not 0 <= ntemps <= C_MAX_STEPS:
        raise ValueError(f"a program has 1 to {C_MAX_STEPS} steps")
    if len(inputs) > C_MAX_STEPS * MAX_ARGS or len(consts) > C_MAX_STEPS * MAX_ARGS:
        raise ValueError("too many operands")
    keep = [out, *inputs, *consts]
    p = <Program*>job_array(1, sizeof(Program), keep)
    p.nsteps, p.ntemps, p.item, p.n = len(steps), ntemps, out.itemsize, n
    p.out = <char*>cnp.PyArray_DATA(out)
    for j, a in enumerate(inputs):
        if cnp.PyArray_TYPE(a) != num or not a.flags.c_contiguous or a.size not in (1, n):
            raise ValueError(f"input {j} must be C-contiguous of out's type and size (or 1)")
        p.inputs[j] = <char*>cnp.PyArray_DATA(a)
        p.input_flat[j] = a.size == n and n != 1
    for j, a in enumerate(consts):
        if cnp.PyArray_TYPE(a) != num or a.size != 1:
            raise ValueError(f"constant {j} must be one value of out's type")
        p.consts[j] = <char*>cnp.PyArray_DATA(a)
    for s, (uf, index, operands, result) in enumerate(steps):
        nin = uf.nin
        if uf.nout != 1 or len(operands) != nin or not 0 <= index < uf.ntypes:
            raise ValueError(f"step {s}: one operand per input and a loop index are needed")
        for j in range(nin + 1):
            if uf.types[index * uf.nargs + j] != num:
                raise TypeError(f"step {s}: the loop's types must all be out's")
        p.steps[s].fn = <loop_fn>uf.functions[index]
        p.steps[s].data = uf.data[index]
        p.steps[s].nargs = nin + 1
        for j, (kind, idx) in enumerate([*operands, result]):
            if kind == C_INPUT and not 0 <= idx < len(inputs) or \
                    kind == C_CONST and not 0 <= idx < len(consts) or \
                    kind == C_TEMP and not 0 <= idx < ntemps or \
                    kind == C_OUT and j != nin or not 0 <= kind <= C_OUT:
                raise ValueError(f"step {s}: operand {j} refers to nothing")
            if j == nin and kind not in (C_TEMP, C_OUT):
                raise ValueError(f"step {s}: a result goes to scratch or out")
            p.steps[s].kind[j], p.steps[s].index[j] = kind, idx
    if steps[len(steps) - 1][3][0] != C_OUT:
        raise ValueError("the last step's result must be out")
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
