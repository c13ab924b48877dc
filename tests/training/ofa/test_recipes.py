"""The GPU recipe that made `ofa-mixture`, run end to end on the CPU at toy size: it runs only
on a lent GPU otherwise, so a change that broke it would show only there, in a session with 15
minutes of device time. Slow (two training runs and their data): `pytest -m slow`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from datagen import generate
from vrs.ofa.checkpoint import save_checkpoint
from vrs.ofa.config import preset
from vrs.ofa.model import OfaVqa
from vrs.ofa.patches import PATCH_CLASSES
from vrs.ofa.tokenizer import train_tokenizer

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[3]
RECIPE = ROOT / "training" / "recipes" / "ofa_mixture_gpu.sh"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A PyBullet set, a stand-in "Blender" set (the same kind of files, split names prefixed
    `blender_`, as the recipe's archives hold) and a small model with a patch head."""
    root = tmp_path_factory.mktemp("recipe")
    generate(root / "pybullet", ["block_bowl", "block_stack"], images_per_split=4,
             questions_per_image=4, shard_size=4, seed_offset=950_000, progress=False)
    blender = root / "blender"
    blender.mkdir()
    shutil.copytree(root / "pybullet" / "block_bowl", blender / "blender_block_bowl")
    tokenizer = train_tokenizer()
    torch.manual_seed(0)
    config = preset("tiny", vocab_size=tokenizer.vocab_size, d_model=32, heads=2,
                    encoder_layers=1, decoder_layers=1, stem_channels=(8, 8, 16, 16),
                    patch_labels=len(PATCH_CLASSES))
    save_checkpoint(root / "init", OfaVqa(config), tokenizer=tokenizer)
    return root


def _run(workspace: Path, out: str, **env: str) -> subprocess.CompletedProcess:
    variables = {**os.environ, "CODEPLAN": f"{sys.executable} -m runtime.cli",
                 # the recipe's own `python3 -m training.ofa...` steps: this interpreter
                 "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                 "DATA": f"{workspace / 'pybullet'},{workspace / 'blender'}",
                 "INIT": str(workspace / "init"), "RUNS": str(workspace / out),
                 "EXPORT": str(workspace / out / "export"),
                 "MIX": "block_bowl=1,block_stack=1,blender_block_bowl=0.5",
                 "BATCH": "4", "THREADS": "1", "EVAL_Q": "16", "TRAIN_S": "120",
                 "ACCELERATE_MIXED_PRECISION": "no", **env}
    return subprocess.run(["bash", str(RECIPE)], cwd=ROOT, env=variables, capture_output=True,
                          text=True, timeout=600)


def test_the_mixture_recipe_trains_and_exports_the_shipped_form(workspace):
    done = _run(workspace, "fixed", STEPS="4", WARMUP="1")
    assert done.returncode == 0, done.stderr[-2000:]
    export = workspace / "fixed" / "export"
    weights = load_file(str(export / "model.safetensors"))
    assert all(w.dtype == torch.float16 for w in weights.values() if w.is_floating_point())
    config = json.loads((export / "config.json").read_text())
    assert config["training"]["steps"] == 4 and config["training"]["exported_from"].endswith(
        "model")
    curve = [json.loads(x) for x in (export / "curve.jsonl").read_text().splitlines()]
    assert set(curve[0]["baseline"]["mix"]) == {"block_bowl", "block_stack",
                                                "blender_block_bowl"}
    assert config["training"]["samples"] >= 4 * 4  # 4 steps of about 4 questions
    assert (export / "tokenizer.json").is_file()


def test_without_steps_a_probe_sizes_the_run_to_the_time_given(workspace):
    done = _run(workspace, "probed", TRAIN_S="5")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "probe:" in done.stderr and "steps for 5s" in done.stderr
    steps = json.loads((workspace / "probed" / "export" / "config.json").read_text())
    assert steps["training"]["steps"] >= 100  # the probe's floor: never a run of no steps
