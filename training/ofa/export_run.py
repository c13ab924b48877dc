"""Export an OFA-style training run in the shipped form: fp16 weights, its config, tokenizer,
learning curve and step log in one folder.

    python3 -m training.ofa.export_run RUN INIT OUT

Why: the GPU recipes stop training at a time limit (`timeout`); a run stopped before its own
export still has checkpoints, and the newest one is then what ships, with config.json's
`training.exported_from` saying which. fp16 halves the checkpoint (8.4 MB for `ofa-custom`)
and the CPU reasoner casts back on load. The tokenizer comes from INIT, the model the run
started from: a fine-tuning run never changes it.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from safetensors.torch import load_file, save_file

RUN_FILES = ("curve.jsonl", "train_log.jsonl")


def newest_model(run: Path) -> Path:
    """RUN/model when the run exported itself, else its newest checkpoint."""
    if (run / "model" / "model.safetensors").is_file():
        return run / "model"
    saved = sorted((run / "checkpoints").glob("step_*"))
    if not saved:
        raise FileNotFoundError(f"{run}: no exported model and no checkpoint to export")
    return saved[-1]


def export_run(run: Path, init: Path, out: Path) -> Path:
    """Write OUT from RUN (see the module docstring); returns the folder exported from."""
    src = newest_model(run)
    if not (init / "tokenizer.json").is_file():
        raise FileNotFoundError(f"{init}: no tokenizer.json (INIT must be the run's --init)")
    out.mkdir(parents=True, exist_ok=True)
    weights = {k: v.half() if v.is_floating_point() else v
               for k, v in load_file(str(src / "model.safetensors")).items()}
    save_file(weights, str(out / "model.safetensors"))
    config = json.loads((src / "config.json").read_text())
    config.setdefault("training", {})["exported_from"] = str(src)
    (out / "config.json").write_text(json.dumps(config, indent=2))
    shutil.copy(init / "tokenizer.json", out / "tokenizer.json")
    for name in RUN_FILES:
        if (run / name).is_file():
            shutil.copy(run / name, out / name)
    return src


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python3 -m training.ofa.export_run RUN INIT OUT", file=sys.stderr)
        return 2
    run, init, out = (Path(p) for p in argv)
    try:
        src = export_run(run, init, out)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"exported {src} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
