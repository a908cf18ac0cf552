"""Worker processes for `external_source(parallel=True)` (DALI's parallel external source).

One `WorkerPool` per pipeline runs the parallel sources' callbacks in `py_num_workers` worker
processes started with `py_start_method` ("fork" or "spawn").  A per-sample source (a callable
taking `SampleInfo`) has each batch split into contiguous slices, one per worker; a batch source
(a callable taking `BatchInfo` or the iteration, or a generator function) gets a dedicated
worker, chosen round-robin, which keeps its generator.  Each source keeps its
`prefetch_queue_depth` batches scheduled ahead of the one the pipeline takes.

Samples travel through shared memory: a worker writes a task's samples back to back into a new
POSIX shared-memory segment, named by the main process in the task, and sends the samples'
shapes and types; the main process maps it, removes its name at once and hands the pipeline
NumPy views of the mapping, which keep it alive: no copy on the way.  Because the main process
knows every name, it removes the segments of tasks whose results nobody took, or whose worker
died while writing, when the pool stops: nothing is left in /dev/shm.

Faults: an exception in a callback comes back with the worker's traceback and is raised by the
`run()` that needed the batch; StopIteration ends the epoch as in DALI; a worker that dies
(killed, crashed) is noticed within a poll interval and reported with its exit code; the pool
stops its workers when the pipeline goes away, at interpreter exit, or after a fault, and
removes the segments of results nobody took.
"""

from __future__ import annotations

import atexit
import importlib
import inspect
import mmap
import multiprocessing
import os
import queue
import secrets
import traceback
import weakref

import numpy as np

from dali.ops.python import _pickler

try:
    import _posixshmem
except ImportError:                          # pragma: no cover - non-POSIX platforms
    _posixshmem = None

POLL_S = 0.1
_ALIGN = 64


# -- worker side ----------------------------------------------------------------------------
def _write_segment(name, arrays):
    """Put `arrays` in a new shared-memory segment `name`; returns their metas."""
    from multiprocessing import resource_tracker, shared_memory

    arrays = [_contiguous(a) for a in arrays]
    metas, offset = [], 0
    for a in arrays:
        metas.append((offset, a.shape, a.dtype.str))
        offset += (a.nbytes + _ALIGN - 1) // _ALIGN * _ALIGN
    shm = shared_memory.SharedMemory(name=name, create=True, size=max(offset, 1))
    # the main process owns the segment (it unlinks it when it maps it, or when it stops)
    resource_tracker.unregister(shm._name, "shared_memory")
    try:
        for a, (off, _, _) in zip(arrays, metas, strict=True):
            shm.buf[off:off + a.nbytes] = a.reshape(-1).view(np.uint8)
    finally:
        shm.close()
    return metas


def _contiguous(a):
    """`a` as a C-contiguous array, keeping 0-d arrays 0-d (unlike np.ascontiguousarray)."""
    a = np.asarray(a)
    return a if a.flags.c_contiguous else np.array(a, order="C")


def _as_arrays(data, num_outputs):
    """One sample (or batch) as a list of arrays, one per output."""
    items = data if num_outputs > 1 else (data,)
    if num_outputs > 1 and (not isinstance(data, (tuple, list)) or len(data) != num_outputs):
        raise TypeError(f"the source must return {num_outputs} outputs, got {type(data)}")
    return [np.asarray(x) for x in items]


def _run_task(sources, generators, task):
    kind, sid, iteration, epoch, start, stop, bs = task[2:]
    from dali import _types

    source, num_outputs, batch_info, cycle = sources[sid]
    if kind == "samples":
        per_output = [[] for _ in range(num_outputs)]
        for i in range(start, stop):
            info = _types.SampleInfo(iteration * bs + i, i, iteration, epoch)
            for k, a in enumerate(_as_arrays(source(info), num_outputs)):
                per_output[k].append(a)
        return [a for arrays in per_output for a in arrays], stop - start
    if kind == "generator":
        data = _next_item(generators, sid, source, cycle)
    else:
        data = source(_types.BatchInfo(iteration, epoch) if batch_info else iteration)
    outs = [list(np.asarray(x)) if not isinstance(x, list) else [np.asarray(s) for s in x]
            for x in (data if num_outputs > 1 else (data,))]
    return [a for arrays in outs for a in arrays], len(outs[0])


def _next_item(generators, sid, source, cycle):
    """The next batch of an iterable source, with external_source's `cycle` rules: "no" ends
    the data for good, "quiet" restarts at once, "raise" ends the epoch and restarts next."""
    it = generators.get(sid)
    if it == "exhausted":
        raise StopIteration
    if it is None:
        it = generators[sid] = iter(source() if inspect.isgeneratorfunction(source)
                                    else source)
    try:
        return next(it)
    except StopIteration:
        generators[sid] = "exhausted" if cycle == "no" else None
        if cycle == "quiet":
            return _next_item(generators, sid, source, cycle)
        raise


def _worker_main(sources, tasks, results):
    if isinstance(sources, tuple) and len(sources) == 2 and isinstance(sources[1], bytes):
        sources = importlib.import_module(sources[0]).loads(sources[1])   # "spawn"
    generators = {}
    while True:
        task = tasks.get()
        if task is None:
            return
        tid, name = task[0], task[1]
        try:
            arrays, count = _run_task(sources, generators, task)
            metas = _write_segment(name, arrays)
            results.put((tid, "ok", name, metas, count))
        except StopIteration:
            results.put((tid, "stop", None, None, 0))
        except BaseException as e:  # noqa: BLE001  (reported to the main process)
            results.put((tid, "error", type(e).__name__, str(e), traceback.format_exc()))


# -- main process side -----------------------------------------------------------------------
def _map_segment(name, metas):
    """NumPy views of a worker's segment; its name is removed at once."""
    fd = _posixshmem.shm_open("/" + name.lstrip("/"), os.O_RDWR, 0o600)
    try:
        size = os.fstat(fd).st_size
        mm = mmap.mmap(fd, size)
    finally:
        os.close(fd)
        _posixshmem.shm_unlink("/" + name.lstrip("/"))
    buf = np.frombuffer(mm, np.uint8)
    out = []
    for offset, shape, dtype in metas:
        dt = np.dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        out.append(buf[offset:offset + n].view(dt).reshape(shape))
    return out


class WorkerError(RuntimeError):
    """A callback failed in a worker process, or a worker died."""


class WorkerPool:
    """The worker processes of one pipeline's parallel sources (see the module docstring).

    Parameters
    ----------
    sources : list of (callable, num_outputs, batch_info, kind, cycle)
        `kind`: "samples" (per-sample callable), "batch" (batch callable) or "generator"
        (an iterable or generator function, with external_source's `cycle`).
    num_workers : int
    start_method : str
    prefetch : list of int
        Batches to keep scheduled ahead, per source.
    batch_size : int
    pickler : module or (module, kwargs) or None
        How callbacks travel to "spawn" workers (default: pickle).
    """

    def __init__(self, sources, num_workers, start_method, prefetch, batch_size, pickler=None):
        if _posixshmem is None:
            raise RuntimeError("external_source(parallel=True) needs POSIX shared memory")
        if num_workers < 1:
            raise RuntimeError("The parallel external source needs at least one worker: set "
                               "py_num_workers to a positive number")
        self._kinds = [s[3] for s in sources]
        self._prefetch = list(prefetch)
        self._bs = batch_size
        ctx = multiprocessing.get_context(start_method)
        payload = [(s[0], s[1], s[2], s[4]) for s in sources]
        if start_method == "spawn":
            payload = _pickled(payload, pickler)
        self._results = ctx.Queue()
        self._tasks = [ctx.Queue() for _ in range(num_workers)]
        self.processes = [ctx.Process(target=_worker_main, args=(payload, q, self._results),
                                      daemon=True, name=f"dali-source-worker-{i}")
                          for i, q in enumerate(self._tasks)]
        for p in self.processes:
            p.start()
        self._dedicated = [i % num_workers for i in range(len(sources))]
        self._next_tid = 0
        self._pending = {}                   # tid -> (source, iteration, epoch, slice index)
        self._done = {}                      # tid -> result
        self._scheduled = [{} for _ in sources]   # per source: iteration -> [tids]
        self._stopped = [None for _ in sources]   # iteration at which StopIteration came
        self._closed = False
        self._names = {}                     # tid -> segment name, until it is mapped
        self._token = secrets.token_hex(3)
        self._finalizer = weakref.finalize(self, _shutdown, self.processes, self._tasks,
                                           self._results, self._names)
        atexit.register(self._finalizer)

    # -- scheduling ------------------------------------------------------------------------------
    def _submit(self, sid, iteration, epoch):
        bs = self._bs
        kind = self._kinds[sid]
        if kind == "samples":
            n = len(self._tasks)
            bounds = [bs * w // n for w in range(n + 1)]
            parts = [(w, bounds[w], bounds[w + 1]) for w in range(n) if bounds[w + 1] >
                     bounds[w]]
        else:
            parts = [(self._dedicated[sid], 0, bs)]
        tids = []
        for worker, start, stop in parts:
            tid = self._next_tid
            self._next_tid += 1
            name = f"dali{os.getpid():x}_{self._token}_{tid:x}"     # short: macOS allows 31
            self._names[tid] = name
            self._tasks[worker].put((tid, name, kind, sid, iteration, epoch, start, stop, bs))
            self._pending[tid] = worker
            tids.append(tid)
        self._scheduled[sid][iteration] = tids

    def batch(self, sid, iteration, epoch):
        """Source `sid`'s batch `iteration` of `epoch` (a list of arrays per output, or a
        tuple of such lists for several outputs); StopIteration at the end of the data."""
        self._check_open()
        for it in range(iteration, iteration + 1 + self._prefetch[sid]):
            if it not in self._scheduled[sid]:
                self._submit(sid, it, epoch)
        tids = self._scheduled[sid].pop(iteration)
        results = [self._wait(t) for t in tids]
        if any(r[1] == "stop" for r in results):
            self.forget(sid)
            raise StopIteration
        per_output = None
        for tid, r in zip(tids, results, strict=True):
            arrays = _map_segment(r[2], r[3])
            self._names.pop(tid, None)
            count = r[4]
            k = len(arrays) // count if count else 0
            parts = [arrays[j * count:(j + 1) * count] for j in range(k)]
            per_output = parts if per_output is None else [a + b for a, b in
                                                            zip(per_output, parts, strict=True)]
        return per_output

    def forget(self, sid):
        """Drop what is scheduled for source `sid` (the epoch ended)."""
        for tids in self._scheduled[sid].values():
            for t in tids:
                self._discard(t, self._wait(t))
        self._scheduled[sid].clear()

    def _discard(self, tid, result):
        if result[1] == "ok":
            _unlink(self._names.pop(tid))

    def _wait(self, tid):
        while tid not in self._done:
            try:
                r = self._results.get(timeout=POLL_S)
            except queue.Empty:
                self._check_workers(tid)
                continue
            self._pending.pop(r[0], None)
            self._done[r[0]] = r
        r = self._done.pop(tid)
        if r[1] != "ok":
            self._names.pop(tid, None)
        if r[1] == "error":
            self.close()
            raise WorkerError(f"The parallel external_source callback raised {r[2]}: {r[3]}\n"
                              f"in the worker process:\n{r[4]}")
        return r

    def _check_workers(self, tid):
        worker = self._pending.get(tid)
        proc = self.processes[worker] if worker is not None else None
        if proc is not None and proc.exitcode is not None:
            self.close()
            raise WorkerError(f"The parallel external_source worker process {proc.pid} "
                              f"exited with code {proc.exitcode} while it computed a batch; "
                              "the pipeline cannot go on")

    def _check_open(self):
        if self._closed:
            raise WorkerError("The parallel external_source workers were stopped after an "
                              "earlier error; build a new pipeline")

    @property
    def pids(self):
        return [p.pid for p in self.processes]

    def close(self):
        if not self._closed:
            self._closed = True
            self._finalizer()


def _unlink(name):
    try:
        _posixshmem.shm_unlink("/" + name.lstrip("/"))
    except FileNotFoundError:
        pass


def _shutdown(processes, tasks, results, names):
    for q in tasks:
        try:
            q.put(None)
        except (OSError, ValueError):
            pass
    for p in processes:
        p.join(timeout=1.0)
        if p.is_alive():
            p.terminate()
            p.join(timeout=1.0)
    for name in names.values():           # results nobody took, workers that died writing
        _unlink(name)
    names.clear()
    for q in [*tasks, results]:
        q.close()
        q.join_thread()


def _pickled(payload, pickler):
    """The sources for "spawn" workers, pickled with `pickler` (DALI's py_callback_pickler:
    a module with dumps/loads, or (module, dumps kwargs)); by default with
    `dali.ops.python._pickler`, which also sends lambdas and local functions."""
    module, kwargs = (pickler if isinstance(pickler, tuple) else (pickler or _pickler, {}))
    try:
        return module.__name__, module.dumps(payload, **kwargs)
    except Exception as e:
        raise RuntimeError(
            "external_source(parallel=True) with py_start_method=\"spawn\" sends the source "
            "to the workers by pickling it, and it cannot be pickled "
            f"({type(e).__name__}: {e}); define it at module level, use "
            "py_start_method=\"fork\", or give py_callback_pickler") from e
