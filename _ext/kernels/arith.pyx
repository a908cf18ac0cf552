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
