"""The executor: buffer reuse, output size hints, memory statistics and per-operator timing."""

import concurrent.futures

import numpy as np
import pytest
from dali._ext.buffer_pool import BufferPool, default_pool

from dali import fn, pipeline_def, types
from dali.pipeline import experimental

MODES = {
    "simple": dict(exec_pipelined=False, exec_async=False),
    "pipelined": dict(exec_pipelined=True, exec_async=False, exec_dynamic=False),
    "async": dict(exec_pipelined=True, exec_async=True, exec_dynamic=False),
    "dynamic": dict(exec_pipelined=True, exec_async=True, exec_dynamic=True),
}


def _cycling(batches):
    """An external-source callback returning `batches` in turn, forever."""
    state = {"i": 0}

    def source():
        b = batches[state["i"] % len(batches)]
        state["i"] += 1
        return b

    return source


def _images(seed, count=3, batch_size=4):
    rng = np.random.default_rng(seed)
    return [[rng.integers(0, 256, (int(rng.integers(30, 60)), int(rng.integers(30, 60)), 3),
                          dtype=np.uint8) for _ in range(batch_size)] for _ in range(count)]


def _augmenting(hint, **kwargs):
    """Resize by a random factor, crop-mirror-normalize, rotate by a random angle: outputs
    whose sizes change every iteration, presized with `bytes_per_sample_hint`."""

    @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3, **kwargs)
    def pipe():
        x = fn.external_source(source=_cycling(_images(0)), layout="HWC")
        size = fn.random.uniform(range=(20, 40))
        y = fn.resize(x, resize_x=size, resize_y=size, bytes_per_sample_hint=hint)
        z = fn.crop_mirror_normalize(y, crop=(16, 16), mean=[1, 2, 3], std=[2, 2, 2],
                                     mirror=fn.random.coin_flip(), dtype=types.FLOAT,
                                     output_layout="HWC")
        r = fn.rotate(z, angle=fn.random.uniform(range=(-30, 30)), bytes_per_sample_hint=hint)
        return z, r

    p = pipe()
    p.build()
    return p


# -- buffers -----------------------------------------------------------------------------------

def _settled_run(pipe):
    """`pipe.run()`, then wait until the background thread (exec_async) has finished what was
    queued, and drop the outputs only then: every lease and release happens in one order, so
    the pool's counts do not depend on how the two threads happened to overlap."""
    outs = pipe.run()
    concurrent.futures.wait([future for future, *_ in pipe._sched.ready])
    return [tl.shape() for tl in outs]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_steady_state_iterations_allocate_nothing_new(mode):
    pipe = _augmenting(hint=40 * 40 * 3 * 4, **MODES[mode])
    pool = default_pool()
    for _ in range(10):
        _settled_run(pipe)
    before = pool.stats()
    shapes = {tuple(s) for _ in range(50) for s in _settled_run(pipe)[1]}
    after = pool.stats()
    assert len(shapes) > 1                                  # output sizes do vary ...
    assert after["leases"] - before["leases"] >= 50 * 5     # ... every output is leased ...
    assert after["allocations"] == before["allocations"]    # ... from blocks already held
    held = after["bytes_in_use"] + after["bytes_cached"]
    assert held == before["bytes_in_use"] + before["bytes_cached"]


def _hinted(op_hint, pipeline_hint):
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, bytes_per_sample=pipeline_hint,
                  exec_pipelined=False, exec_async=False)
    def pipe():
        x = fn.external_source(source=lambda: [np.ones(4, np.uint8)] * 4)
        return fn.copy(x, bytes_per_sample_hint=op_hint), fn.copy(x), x + 1

    p = pipe()
    p.build()
    return p.run()


def _sized_for_bytes(capacity, nbytes):
    """Whether a block of `capacity` bytes can be the one leased for `nbytes` (the shared pool
    may hand out a cached block up to four classes, at most twice, larger)."""
    return BufferPool.capacity_for(nbytes) <= capacity <= 2 * BufferPool.capacity_for(nbytes)


def _sized_for(storage, nbytes):
    return _sized_for_bytes(storage.capacity, nbytes)


def test_bytes_per_sample_hint_presizes_output_blocks():
    hinted, plain, _ = _hinted([5000], 0)
    assert _sized_for(hinted._storage, 5000 * 4)
    assert _sized_for(plain._storage, 16)
    assert hinted._storage.nbytes == 16 and np.array(hinted[2]).tolist() == [1, 1, 1, 1]


def test_pipeline_bytes_per_sample_is_the_default_hint():
    hinted, plain, arith = _hinted([5000], 3000)
    assert _sized_for(hinted._storage, 5000 * 4)
    assert _sized_for(plain._storage, 3000 * 4)
    assert _sized_for(arith._storage, 3000 * 4)
    assert np.array(arith[0]).tolist() == [2, 2, 2, 2]


# -- memory statistics -------------------------------------------------------------------------

_SHAPES = [[(10, 2), (1, 3)], [(50, 2), (1, 1)], [(1, 1), (1, 1)]]


def _stats_pipeline(lib, **kwargs):
    if lib == "dali":
        from dali import fn as f
        from dali import pipeline_def as pdef
    else:
        from nvidia.dali import fn as f
        from nvidia.dali import pipeline_def as pdef

    batches = [[np.ones(s, np.uint8) for s in b] for b in _SHAPES]

    @pdef(batch_size=2, num_threads=1, device_id=None, enable_memory_stats=True,
          exec_pipelined=False, exec_async=False, exec_dynamic=False, **kwargs)
    def pipe():
        x = f.external_source(source=_cycling(batches), name="src")
        return f.copy(x, name="twice") + x, f.cast(x, dtype=types.INT32, name="wide")

    p = pipe()
    p.build()
    return p


def test_memory_statistics_are_largest_output_sizes_so_far():
    pipe = _stats_pipeline("dali")
    assert pipe.executor_statistics() == {}         # as in DALI: nothing before the first run
    history = []
    for _ in _SHAPES:
        pipe.run()
        history.append(pipe.executor_statistics())
    first, last = history[0], history[-1]
    assert set(first) == {"CPU_src", "CPU_twice", "CPU_wide",
                          "CPU_" + next(k[4:] for k in first if "Arithmetic" in k)}
    assert first["CPU_src"]["real_memory_size"] == [23]
    assert first["CPU_src"]["max_real_memory_size"] == [12]          # ceil(23 / 2)
    assert first["CPU_wide"]["real_memory_size"] == [92]
    # maxima over iterations: the third, tiny batch changes nothing
    assert history[1] == last
    assert last["CPU_src"]["real_memory_size"] == [101]
    assert last["CPU_src"]["max_real_memory_size"] == [51]
    for stats in last.values():
        (real,), (reserved,) = stats["real_memory_size"], stats["reserved_memory_size"]
        assert _sized_for_bytes(reserved, real)              # the pool block actually held
        assert stats["max_reserved_memory_size"] == [(reserved + 1) // 2]


def test_memory_statistics_need_enable_memory_stats():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.random.uniform(shape=(2,))

    p = pipe()
    assert p.executor_statistics() == {}
    p.run()
    assert p.executor_statistics() == {}


@pytest.mark.oracle
def test_memory_statistics_match_real_dali_legacy_executor():
    ours, real = _stats_pipeline("dali"), _stats_pipeline("nvidia")
    for _ in _SHAPES:
        ours.run()
        real.run()
        mine, theirs = ours.executor_statistics(), real.executor_statistics()
        for name in ("CPU_src", "CPU_twice", "CPU_wide"):
            for key in ("real_memory_size", "max_real_memory_size"):
                assert mine[name][key] == theirs[name][key], (name, key)
            assert set(mine[name]) == set(theirs[name])


# -- timing ------------------------------------------------------------------------------------

def test_executor_timing_counts_every_run_of_every_operator():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, prefetch_queue_depth=2,
                  exec_pipelined=True, exec_async=False, exec_dynamic=False)
    def pipe():
        x = fn.random.uniform(shape=(3,), name="u")
        return fn.copy(x, name="c") * 2

    p = pipe()
    assert p.executor_timing() == {}
    for _ in range(3):
        p.run()
    timing = p.executor_timing()
    assert {"u", "c"} <= set(timing) and len(timing) == 3
    for t in timing.values():
        assert t["runs"] == 4            # two prefetched, then one per later run()
        assert 0 < t["mean_us"] <= t["max_us"] <= t["total_us"]
        assert t["mean_us"] == pytest.approx(t["total_us"] / 4)
    p.executor_timing(reset=True)
    assert all(t["runs"] == 0 for t in p.executor_timing().values())
    p.run()
    assert all(t["runs"] == 1 for t in p.executor_timing().values())


@pytest.mark.parametrize("debug", [False, True])
def test_an_operator_with_only_argument_inputs_takes_their_batch_size(debug):
    """Inside a branch an operator without positional inputs (a transform with a per-sample
    argument) runs on the branch's samples, as DALI sizes it by its argument inputs."""
    values = [np.array(float(i), np.float32) for i in range(8)]

    def graph():
        v = fn.external_source(source=lambda: values)
        if v > 3.5:
            out = fn.transforms.translation(offset=fn.stack(v, v))
        else:
            out = fn.transforms.translation(offset=fn.stack(-v, -v))
        return out

    kwargs = dict(batch_size=8, num_threads=1, device_id=None, enable_conditionals=True)
    define = experimental.pipeline_def(debug=True, **kwargs) if debug else pipeline_def(**kwargs)
    pipe = define(graph)()
    pipe.build()
    (out,) = pipe.run()
    for i, m in enumerate(out):
        t = i if i > 3.5 else -i
        np.testing.assert_array_equal(np.array(m), [[1, 0, t], [0, 1, t]])
