"""Compiling `numba_function`'s user functions into C entry points that run without the GIL.

The run function `run_fn(out0, ..., in0, ...)` is wrapped in a numba `cfunc` with the C
signature `void f(int64_t* ptrs, int64_t* shapes, int64_t nptrs, int64_t nshapes)` that the
`numba_call` kernel calls on the pipeline's pool: `ptrs` holds the addresses of the arguments'
data, `shapes` their extents, concatenated.  Each argument is turned into an array by a small
jitted "view" (its position, offset in `shapes`, element type and number of dimensions are
compile-time constants of a closure), and the views are chained, each appending its array to
the tuple of arguments that the innermost step unpacks into `run_fn(*args)`; so any number of
arguments of any types compiles without generating source code.  Per sample, an argument is
one array; with batch processing the entry point is called once for the batch (row i of
`ptrs` / `shapes` is sample i's, flattened) and an argument is a list of arrays.

The setup function `setup_fn(outs, ins)` is jitted with a wrapper that hands it
`outs[k][i]` / `ins[k][i]` as views into the flat shape buffers the operator owns, so what
it writes into `outs` are the output shapes.
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba import carray, cfunc, njit
from numba import types as nt
from numba.core import cgutils
from numba.np.unsafe.ndarray import to_fixed_tuple

ENTRY_SIGNATURE = nt.void(nt.CPointer(nt.int64), nt.CPointer(nt.int64), nt.int64, nt.int64)


@numba.extending.intrinsic
def _void_ptr(typingctx, address):
    """An integer address as a `void*` (for `carray`)."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)
    return nt.voidptr(address), codegen


def _sample_view(k, offset, scalar, ndim):
    @njit(nogil=True)
    def view(ptrs, shapes):
        shape = to_fixed_tuple(shapes[offset:offset + ndim], ndim)
        return carray(_void_ptr(ptrs[k]), shape, dtype=scalar)
    return view


def _batch_view(k, offset, scalar, ndim, nargs, nshapes):
    @njit(nogil=True)
    def view(ptrs, shapes):
        return [carray(_void_ptr(ptrs[i * nargs + k]),
                       to_fixed_tuple(shapes[i * nshapes + offset:i * nshapes + offset + ndim],
                                      ndim), dtype=scalar)
                for i in range(len(ptrs) // nargs)]
    return view


def _step(then, view):
    @njit(nogil=True)
    def step(ptrs, shapes, args):
        then(ptrs, shapes, args + (view(ptrs, shapes),))
    return step


@functools.lru_cache(maxsize=64)
def run_entry(run_fn, dtypes, ndims, batch):
    """The address of the C entry point running `run_fn` on arguments of numpy `dtypes` and
    `ndims` (outputs first, then inputs), per sample or (`batch`) on the whole batch."""
    body = njit(nogil=True)(run_fn)
    offsets = np.concatenate([[0], np.cumsum(ndims)]).tolist()
    nargs, nshapes = len(ndims), offsets[-1]

    @njit(nogil=True)
    def call(ptrs, shapes, args):
        body(*args)

    for k in reversed(range(nargs)):
        scalar = np.dtype(dtypes[k]).type
        view = (_batch_view(k, offsets[k], scalar, ndims[k], nargs, nshapes) if batch else
                _sample_view(k, offsets[k], scalar, ndims[k]))
        call = _step(call, view)

    @cfunc(ENTRY_SIGNATURE, nopython=True, nogil=True)
    def entry(ptrs, shapes, nptrs, nshapes_total):
        call(carray(ptrs, nptrs), carray(shapes, nshapes_total), ())

    return entry.address, entry        # the cfunc object keeps the code alive


@njit
def _shape_views(flat, offsets, ndims, n):
    total = offsets[-1]
    return [[flat[i * total + offsets[k]:i * total + offsets[k] + ndims[k]] for i in range(n)]
            for k in range(len(ndims))]


@functools.lru_cache(maxsize=64)
def setup_call(setup_fn):
    """`f(out_flat, out_offsets, out_ndims, in_flat, in_offsets, in_ndims, n)` running the
    jitted `setup_fn(outs, ins)` on views of the flat shape buffers (row i: sample i)."""
    body = njit(setup_fn)

    @njit
    def call(out_flat, out_offsets, out_ndims, in_flat, in_offsets, in_ndims, n):
        body(_shape_views(out_flat, out_offsets, out_ndims, n),
             _shape_views(in_flat, in_offsets, in_ndims, n))

    return call
