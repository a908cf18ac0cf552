"""Executor modes: exec_dynamic, separate CPU/GPU prefetch depths, and results that do not depend
on the mode, the number of threads or the prefetch depth."""

import numpy as np
import pytest

from dali import Pipeline, fn, pipeline_def, types

# (exec_pipelined, exec_async, exec_dynamic, prefetch_queue_depth)
MODES = [(False, False, False, 1), (True, False, False, 2), (True, True, False, 2),
         (True, True, True, 2), (True, True, True, 1), (True, True, True, 3),
         (True, True, False, {"cpu_size": 3, "gpu_size": 1}),
         (True, True, False, {"cpu_size": 1, "gpu_size": 4}),
         (False, True, True, 3), (True, False, True, 3)]


def _counting(lib, mode):
    """A pipeline whose source records the iterations it was asked for."""
    if lib == "dali":
        from dali import fn as f
        from dali import pipeline_def as pdef
    else:
        from nvidia.dali import fn as f
        from nvidia.dali import pipeline_def as pdef
    pipelined, async_, dynamic, depth = mode
    calls = []

    def source(info):
        calls.append(info.iteration)
        return [np.full((2,), info.iteration, np.int32)] * 2

    @pdef(batch_size=2, num_threads=1, device_id=None, exec_pipelined=pipelined,
          exec_async=async_, exec_dynamic=dynamic, prefetch_queue_depth=depth)
    def pipe():
        return f.external_source(source=source, batch=True, batch_info=True, name="src")

    p = pipe()
    p.build()
    return p, calls


def _observed(lib, mode):
    p, calls = _counting(lib, mode)
    first = int(np.array(p.run()[0][0])[0])
    prefetched = len(calls)
    second = int(np.array(p.run()[0][0])[0])
    return (prefetched, first, second, len(calls), p.input_feed_count("src"),
            p.cpu_queue_size, p.gpu_queue_size, p.exec_separated)


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_prefetch_depths(mode):
    pipelined, _, _, depth = mode
    expect = (max(depth.values()) if isinstance(depth, dict) else depth) if pipelined else 1
    prefetched, first, second, calls, feed, cpu, gpu, separated = _observed("dali", mode)
    assert (prefetched, first, second, calls) == (expect, 0, 1, expect + 1)
    assert separated == isinstance(depth, dict)
    if separated:
        assert (cpu, gpu) == (depth["cpu_size"], depth["gpu_size"])
    assert feed == max(cpu, gpu)


# Real DALI deadlocks with exec_pipelined=True, exec_async=False, exec_dynamic=False and a
# prefetch depth of 2 or more (reference/dali_quirks.md); we run it, so it is compared with
# nothing.
_DALI_DEADLOCKS = (True, False, False, 2)


@pytest.mark.oracle
@pytest.mark.parametrize("mode", [m for m in MODES if m != _DALI_DEADLOCKS], ids=str)
def test_prefetch_depths_match_real_dali(mode):
    assert _observed("dali", mode) == _observed("nvidia", mode)


def test_exec_dynamic_with_separate_queues_fails_at_build_as_in_dali():
    p = Pipeline(batch_size=1, num_threads=1, device_id=None, exec_dynamic=True,
                 prefetch_queue_depth={"cpu_size": 2, "gpu_size": 2})
    with p:
        p.set_outputs(fn.random.uniform())
    assert p.exec_dynamic is True and p.exec_separated is True
    with pytest.raises(RuntimeError, match="No supported executor selected for pipelined = "
                                           "true, separated = true"):
        p.build()


def test_exec_dynamic_default_and_explicit():
    def make(**kw):
        return Pipeline(batch_size=1, num_threads=1, device_id=None, **kw)

    assert make().exec_dynamic is True
    assert make(exec_dynamic=False).exec_dynamic is False
    assert make(experimental_exec_dynamic=True, exec_async=False).exec_dynamic is True
    assert make(prefetch_queue_depth={"cpu_size": 2, "gpu_size": 1}).exec_dynamic is False


@pytest.mark.parametrize("dynamic", [True, False])
def test_outputs_stay_valid_after_release_and_later_runs(dynamic):
    """exec_dynamic: returned batches are never invalidated and release_outputs() is a no-op
    (here the legacy modes behave the same: buffers live as long as they are referenced)."""
    p, _ = _counting("dali", (True, True, dynamic, 2))
    p.schedule_run()
    first = p.share_outputs()
    kept = [np.array(t) for t in first[0]]
    p.release_outputs()
    p.release_outputs()
    for i in range(1, 6):
        p.schedule_run()
        (tl,) = p.share_outputs()
        assert int(np.array(tl[0])[0]) == i
        p.release_outputs()
    assert [np.array(t).tolist() for t in first[0]] == [k.tolist() for k in kept]
    assert np.array(first[0].as_tensor()).tolist() == [[0, 0], [0, 0]]


# -- results independent of threads, executor mode and prefetch depth ------------------------

def _random_augmentation(num_threads, mode):
    pipelined, async_, dynamic, depth = mode
    rng = np.random.default_rng(11)
    images = [[rng.integers(0, 256, (int(rng.integers(24, 48)), int(rng.integers(24, 48)), 3),
                            dtype=np.uint8) for _ in range(5)] for _ in range(4)]

    @pipeline_def(batch_size=5, num_threads=num_threads, device_id=None, seed=1234,
                  exec_pipelined=pipelined, exec_async=async_, exec_dynamic=dynamic,
                  prefetch_queue_depth=depth)
    def pipe():
        x = fn.external_source(source=lambda info: images[info.iteration % 4], batch=True,
                               batch_info=True, layout="HWC")
        size = fn.random.uniform(range=(16, 40))
        y = fn.resize(x, resize_x=size, resize_y=fn.random.uniform(range=(16, 40)))
        r = fn.rotate(y, angle=fn.random.uniform(range=(-45, 45)), fill_value=0)
        c = fn.crop_mirror_normalize(r, crop=(12, 12), mirror=fn.random.coin_flip(),
                                     mean=[10, 20, 30], std=[50, 60, 70], dtype=types.FLOAT)
        noise = fn.random.normal(shape=(3,)) * 2 + fn.random.uniform(range=(-1, 1))
        return c, noise, fn.random.coin_flip(probability=0.3), size

    p = pipe()
    p.build()
    return [[np.array(t) for tl in p.run() for t in tl] for _ in range(4)]


@pytest.mark.parametrize("mode", [m for m in MODES if m[3] != 1], ids=str)
def test_random_pipeline_results_do_not_depend_on_threads_mode_or_prefetch(mode):
    reference = _random_augmentation(1, (False, False, False, 1))
    for num_threads in (1, 2, 3):
        got = _random_augmentation(num_threads, mode)
        for it, (want, have) in enumerate(zip(reference, got, strict=True)):
            for k, (w, h) in enumerate(zip(want, have, strict=True)):
                assert w.dtype == h.dtype and w.shape == h.shape, (num_threads, it, k)
                np.testing.assert_array_equal(h, w, err_msg=f"{num_threads} {it} {k}")
