"""Worker processes for `external_source(parallel=True)` (DALI's parallel external source).

One `WorkerPool` per pipeline runs the parallel sources' callbacks in `py_num_workers` worker
processes started with `py_start_method` ("fork" or "spawn").  A per-sample source (a callable
taking `SampleInfo`) has each batch split into contiguous slices (mini-batches), as many as
workers; a batch source (a callable taking `BatchInfo` or the iteration, or a generator
function) gets a dedicated worker, chosen round-robin, which keeps its generator.  Each source
keeps its `prefetch_queue_depth` batches scheduled ahead of the one the pipeline takes.  The
mini-batches of per-sample sources go down one pipe all workers read, as from DALI's shared
task queue: the first free worker takes the next one, so a worker the OS runs less (a busy
machine) takes fewer; a batch source's tasks go down its worker's own pipe, and every result
comes back up the worker's own pipe.  The main process waits on those pipes and the processes'
sentinels together, so a result or a worker's death wakes it at once.

Samples travel through shared memory, in chunks as DALI's ShmChunk pool: each source has a
pool of POSIX shared-memory segments made and named by the main process (at the start, DALI's
number: the pipeline's prefetch queue depth plus the source's, times the mini-batches of a
batch; each of max(1 MiB, the mini-batch's samples x `bytes_per_sample_hint`) bytes).  A task
names a free chunk; the worker writes the task's samples back to back into it (growing it to at
least twice its size when they do not fit) and sends their offsets, shapes and types; the main
process hands the pipeline NumPy views of its mapping of the chunk: no copy on the way.  A chunk
is free again only when the last view of it is gone (a finalizer on the array every view of that
use derives from), so a batch the pipeline or the user still holds is never overwritten; when no
chunk is free a new one is made.  The segments' names are removed when the pool stops (the
pipeline goes away, an error, interpreter exit; the views still held stay valid), and are
registered with multiprocessing's resource tracker, which removes them if the main process is
killed.

Faults: an exception in a callback comes back with the worker's traceback and is raised by the
`run()` that needed the batch; StopIteration ends the epoch as in DALI; a worker that dies
(killed, crashed) is reported with its exit code as soon as its sentinel is signalled; the pool
stops its workers when the pipeline goes away, at interpreter exit, or after a fault.
"""

from __future__ import annotations

import atexit
import collections
import importlib
import inspect
import mmap
import multiprocessing
import os
import secrets
import signal
import traceback
import weakref
from multiprocessing import connection, resource_tracker

import numpy as np

from dali.ops.python import _pickler

try:
    import _posixshmem
except ImportError:                          # pragma: no cover - non-POSIX platforms
    _posixshmem = None

_ALIGN = 64                                  # of the samples in a chunk
_CHUNK_ALIGN = 4096                          # of a chunk's capacity (DALI's)
MIN_CHUNK = 1 << 20                          # DALI's smallest initial chunk: 1 MiB


def _aligned(n, alignment=_ALIGN):
    return (n + alignment - 1) // alignment * alignment


def _map(name, size, grow=False):
    """A shared mapping of `size` bytes of segment `name` (first growing it to `size`)."""
    fd = _posixshmem.shm_open("/" + name, os.O_RDWR, 0o600)
    try:
        if grow:
            os.ftruncate(fd, size)
        return mmap.mmap(fd, size)
    finally:
        os.close(fd)


# -- worker side ----------------------------------------------------------------------------
class _ChunkWriter:
    """A worker's mappings of the chunks it has written, kept from task to task."""

    def __init__(self):
        self._maps = {}                      # chunk name -> (mmap, size)

    def write(self, name, capacity, arrays):
        """Put `arrays` in chunk `name` of `capacity` bytes, growing it if they do not fit
        (to at least twice its size, as DALI does); returns their metas and the capacity."""
        arrays = [_contiguous(a) for a in arrays]
        metas, offset = [], 0
        for a in arrays:
            metas.append((offset, a.nbytes, a.shape, a.dtype.str))
            offset += _aligned(a.nbytes)
        grow = offset > capacity
        if grow:
            capacity = _aligned(max(offset, 2 * capacity), _CHUNK_ALIGN)
        mm, size = self._maps.get(name, (None, 0))
        if mm is None or size != capacity:
            mm = _map(name, capacity, grow)
            self._maps[name] = (mm, capacity)
        for a, (off, n, _, _) in zip(arrays, metas, strict=True):
            mm[off:off + n] = a.reshape(-1).view(np.uint8)
        return metas, capacity


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
    kind, sid, iteration, epoch, start, stop, bs = task
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


def _next_task(conn, shared, lock, watched):
    """The next task: from this worker's own pipe first, else from the pipe all workers share
    (whoever is free takes it); None when the main process stops the worker or goes away."""
    while True:
        ready = connection.wait(watched)
        if conn in ready:
            try:
                return conn.recv()
            except EOFError:
                return None
        if shared not in ready:
            return None                      # the main process's sentinel: it went away
        with lock:                           # another worker may have taken it meanwhile
            if shared.poll():
                return shared.recv()


def _worker_main(sources, conn, shared, lock):
    # Ctrl-C reaches the whole process group: the main process acts on it, a worker would
    # only die of it (and a KeyboardInterrupt in a callback would stop the pipeline)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if isinstance(sources, tuple) and len(sources) == 2 and isinstance(sources[1], bytes):
        sources = importlib.import_module(sources[0]).loads(sources[1])   # "spawn"
    generators = {}
    writer = _ChunkWriter()
    # the main process's sentinel: signalled when it dies, even killed (with "fork", a worker
    # started later holds it too, and exits first: the last one started has no such sibling)
    watched = [conn, shared, multiprocessing.parent_process().sentinel]
    while True:
        task = _next_task(conn, shared, lock, watched)
        if task is None:
            return
        tid, name, capacity = task[:3]
        try:
            arrays, count = _run_task(sources, generators, task[3:])
            metas, capacity = writer.write(name, capacity, arrays)
            result = (tid, "ok", capacity, metas, count)
        except StopIteration:
            result = (tid, "stop", capacity, None, 0)
        except BaseException as e:  # noqa: BLE001  (reported to the main process)
            result = (tid, "error", type(e).__name__, str(e), traceback.format_exc())
        conn.send(result)


# -- main process side -----------------------------------------------------------------------
class _Chunks:
    """One source's shared-memory chunks, on the main process's side (see the module
    docstring): the free ones, and each chunk's name, capacity and mapping."""

    def __init__(self, prefix, names, count, capacity, minibatch):
        self._prefix = prefix
        self._names = names                  # every segment of the pool, removed at its stop
        self._initial = _aligned(capacity, _CHUNK_ALIGN)
        self.minibatch = minibatch           # samples in a mini-batch (for the statistics)
        self.capacities = []
        self._maps = []                      # per chunk: (mmap, size) or None
        self._free = collections.deque()     # appended to by finalizers, on any thread
        for _ in range(count):
            self._free.append(self._make())

    def _make(self):
        cid = len(self.capacities)
        name = f"{self._prefix}{cid:x}"
        fd = _posixshmem.shm_open("/" + name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        self._names.append(name)
        resource_tracker.register("/" + name, "shared_memory")
        try:
            os.ftruncate(fd, self._initial)
        finally:
            os.close(fd)
        self.capacities.append(self._initial)
        self._maps.append(None)
        return cid

    def take(self):
        """A free chunk (a new one when none is): (id, name, capacity)."""
        try:
            cid = self._free.popleft()
        except IndexError:
            cid = self._make()
        return cid, f"{self._prefix}{cid:x}", self.capacities[cid]

    def give_back(self, cid, capacity):
        """A chunk whose task's result nobody views (capacity: as the worker left it)."""
        self.capacities[cid] = capacity
        self._free.append(cid)

    def views(self, cid, capacity, metas):
        """Views of the arrays a worker wrote in chunk `cid`; the chunk is free again when
        the last of them is gone."""
        self.capacities[cid] = capacity
        mapped = self._maps[cid]
        if mapped is None or mapped[1] != capacity:
            mapped = self._maps[cid] = (_map(f"{self._prefix}{cid:x}", capacity), capacity)
        owner = np.frombuffer(mapped[0], np.uint8)       # every view's base
        weakref.finalize(owner, self._free.append, cid).atexit = False
        return [owner[off:off + n].view(dtype).reshape(shape)
                for off, n, shape, dtype in metas]


class WorkerError(RuntimeError):
    """A callback failed in a worker process, or a worker died."""


class WorkerPool:
    """The worker processes of one pipeline's parallel sources (see the module docstring).

    Parameters
    ----------
    sources : list of (callable, num_outputs, batch_info, kind, cycle, bytes_per_sample_hint)
        `kind`: "samples" (per-sample callable), "batch" (batch callable) or "generator"
        (an iterable or generator function, with external_source's `cycle`);
        `bytes_per_sample_hint`: the initial chunk size per sample (0: DALI's 1 MiB chunks).
    num_workers : int
    start_method : str
    prefetch : list of int
        Batches to keep scheduled ahead, per source.
    batch_size : int
    pickler : module or (module, kwargs) or None
        How callbacks travel to "spawn" workers (default: pickle).
    keep_alive : int
        The pipeline's prefetch queue depth: with the sources' own prefetch, how many batches
        the initial chunks are for.
    """

    def __init__(self, sources, num_workers, start_method, prefetch, batch_size, pickler=None,
                 keep_alive=2):
        if _posixshmem is None:
            raise RuntimeError("external_source(parallel=True) needs POSIX shared memory")
        if num_workers < 1:
            raise RuntimeError("The parallel external source needs at least one worker: set "
                               "py_num_workers to a positive number")
        self._kinds = [s[3] for s in sources]
        self._prefetch = list(prefetch)
        self._bs = batch_size
        bounds = [batch_size * w // num_workers for w in range(num_workers + 1)]
        self._slices = [(w, bounds[w], bounds[w + 1]) for w in range(num_workers)
                        if bounds[w + 1] > bounds[w]]
        ctx = multiprocessing.get_context(start_method)
        payload = [(s[0], s[1], s[2], s[4]) for s in sources]
        if start_method == "spawn":
            payload = _pickled(payload, pickler)
        self._names, self._conns, self.processes = [], [], []
        # per-sample tasks go down one pipe every worker reads (the first free worker takes
        # the next mini-batch, as from DALI's shared task queue: a worker the OS runs less
        # takes fewer); batch sources' tasks down their dedicated worker's own pipe
        shared, self._shared = ctx.Pipe(duplex=False)
        lock = self._lock = ctx.Lock()       # kept: "spawn" workers open it by name
        self._finalizer = weakref.finalize(self, _shutdown, os.getpid(), self.processes,
                                           self._conns, self._names, self._shared)
        atexit.register(self._finalizer)
        token = secrets.token_hex(3)
        self._chunks = []
        for sid, s in enumerate(sources):
            parts = len(self._slices) if s[3] == "samples" else 1
            minibatch = -(-batch_size // parts)
            self._chunks.append(_Chunks(
                f"dali{os.getpid():x}_{token}_{sid:x}_",     # short: macOS allows 31
                self._names, (keep_alive + self._prefetch[sid]) * parts,
                max(MIN_CHUNK, minibatch * s[5]), minibatch))
        for i in range(num_workers):
            conn, child = ctx.Pipe()
            proc = ctx.Process(target=_worker_main, args=(payload, child, shared, lock),
                               daemon=True, name=f"dali-source-worker-{i}")
            self._conns.append(conn)
            try:
                proc.start()
            finally:
                child.close()                # the worker's end lives in the worker only
            self.processes.append(proc)
        shared.close()
        self._dedicated = [i % num_workers for i in range(len(sources))]
        self._next_tid = 0
        self._pending = {}                   # tid -> (source, chunk)
        self._done = {}                      # tid -> result
        self._orphans = set()                # tids whose results nobody will take
        self._scheduled = [{} for _ in sources]   # per source: iteration -> [tids]
        self._closed = False

    # -- scheduling ------------------------------------------------------------------------------
    def _submit(self, sid, iteration, epoch):
        kind = self._kinds[sid]
        parts = self._slices if kind == "samples" else [(self._dedicated[sid], 0, self._bs)]
        tids = []
        for worker, start, stop in parts:
            tid = self._next_tid
            self._next_tid += 1
            cid, name, capacity = self._chunks[sid].take()
            self._pending[tid] = (sid, cid)
            task = (tid, name, capacity, kind, sid, iteration, epoch, start, stop, self._bs)
            try:
                (self._shared if kind == "samples" else self._conns[worker]).send(task)
            except OSError:
                self._dead(worker)
            tids.append(tid)
        self._scheduled[sid][iteration] = tids

    def batch(self, sid, iteration, epoch):
        """Source `sid`'s batch `iteration` of `epoch`: a list of arrays per output (views of
        the chunks); StopIteration at the end of the data."""
        self._check_open()
        for it in range(iteration, iteration + 1 + self._prefetch[sid]):
            if it not in self._scheduled[sid]:
                self._submit(sid, it, epoch)
        tids = self._scheduled[sid][iteration]
        for t in tids:              # all in before any is taken: a Ctrl-C while waiting
            self._wait(t)           # leaves the batch scheduled for the next call
        del self._scheduled[sid][iteration]
        results = [self._take(t) for t in tids]
        chunks = self._chunks[sid]
        if any(r[1] == "stop" for r in results):
            for r in results:
                chunks.give_back(r[5], r[2])
            self.forget(sid)
            raise StopIteration
        per_output = None
        for r in results:
            arrays, count = chunks.views(r[5], r[2], r[3]), r[4]
            k = len(arrays) // count if count else 0
            parts = [arrays[j * count:(j + 1) * count] for j in range(k)]
            per_output = parts if per_output is None else [a + b for a, b in
                                                            zip(per_output, parts, strict=True)]
        return per_output

    def forget(self, sid):
        """Drop what is scheduled for source `sid` (the epoch ended): the results are thrown
        away as they come."""
        for tids in self._scheduled[sid].values():
            for t in tids:
                r = self._done.pop(t, None)
                if r is None:
                    self._orphans.add(t)
                else:
                    self._chunks[sid].give_back(r[5], r[2] if r[1] != "error" else
                                                self._chunks[sid].capacities[r[5]])
        self._scheduled[sid].clear()

    def _wait(self, tid):
        """Until task `tid`'s result is in (WorkerError when a worker dies)."""
        while tid not in self._done:
            live = [c for c in self._conns if not c.closed]
            for ready in connection.wait(live + [p.sentinel for p in self.processes]):
                if isinstance(ready, int):
                    self._dead(next(w for w, p in enumerate(self.processes)
                                    if p.sentinel == ready))
                else:
                    self._receive(self._conns.index(ready))

    def _take(self, tid):
        """Task `tid`'s result, which is in; a callback's error is raised."""
        r = self._done.pop(tid)
        if r[1] == "error":
            self.close()
            raise WorkerError(f"The parallel external_source callback raised {r[2]}: {r[3]}\n"
                              f"in the worker process:\n{r[4]}")
        return r

    def _receive(self, worker):
        """Take every result worker `worker` has sent (results carry their chunk id added)."""
        conn = self._conns[worker]
        try:
            while conn.poll():
                r = conn.recv()
                sid, cid = self._pending.pop(r[0])
                if r[0] in self._orphans:
                    self._orphans.discard(r[0])
                    self._chunks[sid].give_back(cid, r[2] if r[1] != "error" else
                                                self._chunks[sid].capacities[cid])
                else:
                    self._done[r[0]] = (*r, cid)
        except (EOFError, OSError):
            self._dead(worker)

    def _dead(self, worker):
        """Worker `worker` died (or its pipe broke): take what it sent, then stop."""
        conn = self._conns[worker]
        if not conn.closed:
            try:
                while conn.poll():
                    r = conn.recv()
                    self._done[r[0]] = (*r, self._pending.pop(r[0])[1])
            except (EOFError, OSError):
                pass
            conn.close()
        proc = self.processes[worker]
        proc.join(timeout=1.0)
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

    def statistics(self):
        """DALI's `external_source_shm_statistics()`: every chunk's capacity, and the capacity
        per sample of its mini-batch."""
        return {"capacities": [c for ch in self._chunks for c in ch.capacities],
                "per_sample_capacities": [c // ch.minibatch for ch in self._chunks
                                          for c in ch.capacities]}

    def close(self):
        if not self._closed:
            self._closed = True
            self._finalizer()


def _shutdown(owner, processes, conns, names, shared):
    if os.getpid() != owner:
        # a "fork" worker of another pipeline inherits this pool's finalizer, and its garbage
        # collection may call it: the pool, its workers and its segments are not its own
        return
    try:
        for c in conns:
            try:
                if not c.closed:
                    c.send(None)
            except OSError:
                pass
        for p in processes:
            p.join(timeout=1.0)
            if p.is_alive():
                p.terminate()
                p.join(timeout=1.0)
        for c in [*conns, shared]:
            c.close()
    finally:
        for name in names:                    # the views still held keep their mappings
            try:
                _posixshmem.shm_unlink("/" + name)
            except FileNotFoundError:
                pass
            resource_tracker.unregister("/" + name, "shared_memory")
        names.clear()


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
