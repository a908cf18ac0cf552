/* One item of ThreadPool.map, called with the GIL held: results[item] = (True, value) or
   (False, exception).  Written in C so that nothing can raise out of it: if even the result
   cannot be stored (out of memory), the slot stays None and map() reports that. */
#ifndef DALI_THREAD_POOL_CALL_H
#define DALI_THREAD_POOL_CALL_H

#include <Python.h>

static void dali_call_item(PyObject* callable, PyObject* results, Py_ssize_t item) {
    PyObject* value = PyObject_CallFunction(callable, "n", item);
    PyObject* entry = NULL;
    if (value != NULL) {
        entry = Py_BuildValue("(ON)", Py_True, value);
    } else {
        PyObject *type, *exc, *tb;
        PyErr_Fetch(&type, &exc, &tb);
        PyErr_NormalizeException(&type, &exc, &tb);
        if (exc != NULL && tb != NULL) {
            PyException_SetTraceback(exc, tb);
        }
        if (exc != NULL) {
            entry = Py_BuildValue("(ON)", Py_False, exc);
        }
        Py_XDECREF(type);
        Py_XDECREF(tb);
    }
    if (entry == NULL || PyList_SetItem(results, item, entry) < 0) {
        PyErr_Clear();
    }
}

#endif
