# The executor's compiled core: the build-time plan and the per-operator entry point.
#
# Not thread-safe by itself: one iteration runs at a time (the scheduler's single background
# thread with exec_async, else the caller), or with separate queues one iteration per stage
# (the CPU stage's nodes and the GPU stage's are disjoint).  A node's statistics counters are
# written only by the thread that runs it; readers on other threads may see a value one
# operator run old.
from libc.stdint cimport int64_t


cdef class NodePlan:
    cdef readonly object op, spec
    cdef readonly str name
    cdef int mode                  # MODE_CPU, MODE_GPU or MODE_MIXED (executor.pyx)
    cdef readonly object device    # the dali._gpu.runtime.Device of GPU and mixed nodes, or None
    cdef bint same_batch_inputs
    cdef tuple in_slots            # slot of each positional input
    cdef tuple arg_names           # argument-input names ...
    cdef tuple arg_slots           # ... and their slots
    cdef tuple out_slots           # slot of each output
    cdef tuple free_after          # slots whose last reader is this node (freed after it runs)
    cdef tuple hints               # bytes per sample to presize each output with (0: none)
    # statistics
    cdef readonly int64_t runs, total_ns, max_ns
    cdef list memory               # per output [real, max_real, reserved, max_reserved], or None
    cdef readonly tuple out_meta   # (dtype, ndim, layout) per output of the first run, or None

    cdef int _record(self, list tls) except -1
    cdef int _fold(self, Py_ssize_t k, Py_ssize_t real, Py_ssize_t per_real,
                   Py_ssize_t reserved, Py_ssize_t per_reserved) except -1


cdef class Plan:
    cdef readonly list nodes       # NodePlan, in topological order
    cdef readonly Py_ssize_t num_slots
    cdef tuple output_slots        # slots of the pipeline outputs
    cdef list slot_edges           # the DataNode of each slot (for captures)
    cdef public bint memory_stats  # record output sizes per operator
    cdef public list events        # None, or per node run (node, start_ns, end_ns, cpu_ns, bytes)
    cdef readonly Py_ssize_t split  # staged: nodes[:split], the CPU stage; else len(nodes)

    cdef int _run_range(self, list slots, Py_ssize_t start, Py_ssize_t stop,
                        Py_ssize_t batch_size, root_ids, long long iteration, long long epoch,
                        thread_pool, Py_ssize_t max_batch_size, bint capture) except -1
