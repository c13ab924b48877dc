"""Every trainer under `accelerate launch --multi_gpu --num_processes 2` on a CPU-only machine
(issue 26): the two processes join one gloo group (the exported config says 2 processes,
not two runs racing into one directory), checkpoint, resume where they stopped, and export.

Slow: each launch starts two Python processes that import torch and the project.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu",
          "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no",
          "--dynamo_backend", "no", "-m", "runtime.cli", "train"]


@pytest.fixture(scope="module")
def vqa_data(tmp_path_factory) -> Path:
    from datagen import generate

    out = tmp_path_factory.mktemp("vqa")
    generate(out, ["block_bowl"], images_per_split=8, questions_per_image=4, shard_size=4,
             progress=False)
    return out


def _launch(args: list[str]) -> subprocess.CompletedProcess:
    done = subprocess.run([*LAUNCH, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _argv(family: str, out: Path, steps: int, vqa: Path, demos: Path) -> list[str]:
    common = ["--out", str(out), "--steps", str(steps), "--no-progress"]
    if family == "detector":
        return ["detector", "--data", str(vqa), "--batch-size", "2", "--checkpoint-every",
                "2", *common]
    if family == "ofa":
        return ["ofa", "--data", str(vqa), "--preset", "tiny", "--batch-size", "4",
                "--save-every", "2", "--eval-every", "2", "--eval-questions", "8", *common]
    return ["cliport", "--demos", str(demos), "--batch-size", "2", "--checkpoint-every", "2",
            "--language", "hash", "--workers", "0", *common]


@pytest.mark.parametrize("family", ["detector", "ofa", "cliport"])
def test_two_cpu_processes_train_as_one_run_and_resume(family, vqa_data, demo_dir, tmp_path):
    out = tmp_path / family
    _launch(_argv(family, out, 2, vqa_data, demo_dir))
    assert (out / "checkpoints").is_dir()
    _launch([*_argv(family, out, 4, vqa_data, demo_dir), "--resume"])
    exported = [p for p in out.rglob("config.json") if "checkpoints" not in p.parts]
    config = json.loads(exported[0].read_text())
    training = config["training"]
    assert training["processes"] == 2, "the processes trained alone, not as one group"
    assert training["steps"] == 4
    steps = sorted(int(p.name.removeprefix("step_")) for p in (out / "checkpoints").iterdir())
    assert steps[-1] == 4
