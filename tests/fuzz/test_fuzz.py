"""The fuzzing campaign in the test suite: a short deterministic run, and the regressions."""

from __future__ import annotations

import pytest

from . import campaign, mutate, runner, seeds


def test_seeds_cover_every_format_and_decode():
    formats = {fmt for fmt, _ in seeds.seeds().values()}
    assert formats == {"jpeg", "png", "bmp", "tiff", "webp", "pnm"}
    outcomes = runner.run([runner.Outcome(name, fmt, data)
                           for name, (fmt, data) in seeds.seeds().items()], jobs=1)
    assert {o.name: o.status for o in outcomes} == {name: "ok" for name in seeds.seeds()}


def test_mutants_are_deterministic():
    a = mutate.mutants(seeds.seeds(), 50, seed=7)
    assert a == mutate.mutants(seeds.seeds(), 50, seed=7)
    assert a != mutate.mutants(seeds.seeds(), 50, seed=8)


def test_short_campaign_finds_no_crash_hang_or_memory_hog():
    outcomes = campaign.campaign(400, seed=1, jobs=2)
    failed = [o for o in outcomes if o.failed]
    assert not failed, campaign.report(outcomes)
    assert {o.status for o in outcomes} == {"ok", "refused"}
    assert max(o.rss_kb for o in outcomes) < runner.RSS_TARGET_KB


@pytest.mark.parametrize("path", sorted(runner.REGRESSIONS.glob("*.bin")), ids=lambda p: p.name)
def test_regression(path):
    outcomes = campaign.replay([path], jobs=1)
    assert [o.status for o in outcomes if o.failed] == [], campaign.report(outcomes)


# A stand-in worker: dies by SIGSEGV on inputs starting with b"segv", hangs on b"hang".
FAKE_WORKER = """
import json, os, signal, sys, time
print("ready", flush=True)
for line in open(sys.argv[1]).read().split("\\n"):
    if line:
        data = open(line.split(" ", 1)[1], "rb").read()
        if data.startswith(b"segv"):
            os.kill(os.getpid(), signal.SIGSEGV)
        if data.startswith(b"hang"):
            time.sleep(60)
        print(json.dumps({"status": "refused", "rss_kb": 1, "worker_peak_kb": 1}), flush=True)
"""


def test_crashes_and_hangs_are_reported_and_the_next_inputs_still_run(monkeypatch):
    monkeypatch.setattr(runner, "worker_command", lambda: [runner.sys.executable, "-c",
                                                           FAKE_WORKER])
    outcomes = [runner.Outcome(name, "png", data) for name, data in
                [("a", b"ok"), ("b", b"segv"), ("c", b"ok"), ("d", b"hang"), ("e", b"ok")]]
    runner.run(outcomes, jobs=1, timeout=1.0)
    assert [o.status for o in outcomes] == ["refused", "crash", "refused", "hang", "refused"]
    assert outcomes[1].error.startswith("killed by SIGSEGV")
    assert [o.failed for o in outcomes] == [False, True, False, True, False]
