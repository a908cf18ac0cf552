// A ufunc's table of loop signatures: `ntypes` rows of `nargs` type numbers.  NumPy 2.5's
// Cython declarations of `numpy.ufunc` no longer list `types`, so `ufunc.types` in Cython
// would quietly read the Python attribute (a list of strings) instead of this array.
#pragma once

#include <Python.h>
#include <numpy/ufuncobject.h>

static inline const char* ufunc_loop_types(PyObject* ufunc) {
    return ((PyUFuncObject*)ufunc)->types;
}
