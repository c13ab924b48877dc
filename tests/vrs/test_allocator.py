"""vrs.allocator: the glibc thresholds that keep a reasoner's freed activations in-process."""

import ctypes
import platform
import sys

import pytest

from vrs import allocator


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="mallopt thresholds are glibc's")
def test_thresholds_are_set_on_glibc_and_setting_them_again_is_harmless(monkeypatch):
    monkeypatch.setattr(allocator, "_done", False)
    calls = []
    real = ctypes.CDLL

    class Recording:
        def __init__(self, *args):
            self._lib = real(*args)

        def __getattr__(self, name):
            fn = getattr(self._lib, name)
            if name != "mallopt":
                return fn

            def mallopt(param, value):
                calls.append((param, value))
                return fn(param, value)
            mallopt.argtypes = mallopt.restype = None
            return mallopt

    monkeypatch.setattr(allocator.ctypes, "CDLL", Recording)
    assert allocator.keep_freed_memory() is True
    assert calls == [(allocator.M_MMAP_THRESHOLD, allocator.MMAP_THRESHOLD),
                     (allocator.M_TRIM_THRESHOLD, allocator.TRIM_THRESHOLD)]
    assert allocator.keep_freed_memory() is True and len(calls) == 2  # once per process


def test_other_platforms_keep_their_allocator(monkeypatch):
    monkeypatch.setattr(allocator, "_done", False)
    monkeypatch.setattr(allocator.sys, "platform", "darwin")
    assert allocator.keep_freed_memory() is False


def test_loading_a_reasoner_sets_the_thresholds(monkeypatch):
    from vrs import loading

    called = []
    monkeypatch.setattr(loading, "keep_freed_memory", lambda: called.append(1) or True)
    loading.load_reasoner("detector")
    assert called == [1]


@pytest.mark.parametrize("env", [{"CODEPLAN_KEEP_FREED_MEMORY": "0"},
                                 {"MALLOC_TRIM_THRESHOLD_": "131072"},
                                 {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"}])
def test_the_users_own_malloc_settings_win(monkeypatch, env):
    monkeypatch.setattr(allocator, "_done", False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(allocator.ctypes, "CDLL", lambda *a: pytest.fail("mallopt called"))
    assert allocator.keep_freed_memory() is False


_FAULTS = """
import resource, numpy as np
from vrs.loading import load_reasoner
r = load_reasoner("detector")
rng = np.random.default_rng(0)
images = [rng.integers(0, 255, (240, 320, 3), dtype=np.uint8) for _ in range(25)]
for img in images[:5]:
    r.ask(img, ["how many blocks are there?"])
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for img in images[5:]:
    r.ask(img, ["how many blocks are there?"])
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="mallopt thresholds are glibc's")
def test_a_loaded_reasoner_stops_page_faulting_its_activations():
    """The behaviour itself, in fresh processes: glibc's defaults map the detector's freed
    activations afresh on every call (~1,500 minor faults per call on the reference machine);
    with the thresholds, almost none."""
    import os
    import subprocess

    def faults_per_call(**env) -> float:
        out = subprocess.run([sys.executable, "-c", _FAULTS], capture_output=True, text=True,
                             env={**os.environ, **env}, check=True, timeout=120)
        return float(out.stdout.strip().splitlines()[-1])

    assert faults_per_call() < 50
    assert faults_per_call(CODEPLAN_KEEP_FREED_MEMORY="0") > 500
