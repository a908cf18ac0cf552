# The data of one operator run (the methods operators call live in dali._executor.workspace).
#
# A cdef class so that the executor fills a new workspace with C stores instead of a Python
# __init__; Python code sees ordinary attributes.


cdef class WorkspaceBase:
    cdef public object op, spec
    cdef public Py_ssize_t batch_size
    cdef public object inputs              # list of TensorListCPU
    cdef public object arg_inputs          # dict: argument name -> TensorListCPU
    cdef public object outputs             # after infer: BatchStorage or None per output
    cdef public long long iteration, epoch
    cdef public object sample_ids          # int64 ndarray: each sample's index in the epoch
    cdef public object input_ids           # list of int64 ndarray, per positional input
    cdef public object thread_pool, stream
    cdef public object _arg_cache          # dict, created on first use
    cdef public object _source_info        # per-sample source info of input 0, or None
    cdef public object out_source_info     # set by operators that produce their own
    cdef public object out_meta            # dict k -> (ids, source_info), created on first use
