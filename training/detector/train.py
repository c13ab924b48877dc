"""Train the neuro-symbolic reasoner's object detector with `accelerate`.

    codeplan train detector --data data/vqa-train --val data/vqa-val --out runs/ns --steps 6000

Supervision is dense (every visible object's centre, height and color, from the generator's
scene annotations), so the detector learns in minutes on a CPU what an end-to-end VQA model
learns from answers over millions of samples. AdamW with linear warmup and cosine decay; the
batch order is a pure function of (seed, step), so a resumed run draws the same batches as an
uninterrupted one. The steps are `training.loop`'s, shared by every model family: every
`checkpoint_every` steps the full state is saved under OUT/checkpoints/ (`--resume` continues
from the latest), every `log_every` steps the losses go to OUT/train_log.jsonl; every
`eval_every` steps detection figures on the validation scenes go to OUT/curve.csv. At the end
the model is exported to OUT/ as config.json + model.safetensors (`vrs.loading.load_reasoner
(OUT)`), config.json's "training" saying how it was made (`training.loop.training_record`).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from accelerate import Accelerator
from accelerate.utils import set_seed

from training.detector.data import SceneImages
from training.detector.eval import detection_metrics
from training.detector.loss import detector_losses
from training.detector.pretrained import imagenet_state
from training.detector.widen import widen
from training.loop import Loop, export, make_accelerator, run_loop
from training.ofa.data import parse_mix
from training.schedules import cosine_with_warmup
from training.state import STATE_FILE, checkpoint_to_resume, checkpoints_dir, load_training_state
from vrs.detector.checkpoint import init_from, load_checkpoint, save_checkpoint
from vrs.detector.config import BACKBONES, DetectorConfig
from vrs.detector.model import DetectorNet

# Settings a resumed run may change: more steps extend it (the cosine is recomputed).
RESUMABLE_CHANGES = frozenset({"steps"})


@dataclass
class TrainDetectorSpec:
    """Everything a detector training run depends on (the CLI fills it)."""

    data: list[Path]
    out: Path
    steps: int
    val: list[Path] = field(default_factory=list)
    batch_size: int = 16
    lr: float = 2e-3
    warmup: int = 200
    weight_decay: float = 1e-4
    checkpoint_every: int = 500
    eval_every: int = 500
    resume: bool = False
    seed: int = 0
    limit: int | None = None  # images per split (smoke runs)
    augment: bool = True  # left-right flips and photometric jitter
    # With augment: half of each batch darkened by a gain log-uniform in [dim, 1] (a camera
    # exposure below the 0.8 the `random` look draws; session 32). None: off.
    dim: float | None = None
    init: Path | None = None  # start from this detector checkpoint (fine-tuning)
    levels: int | None = None  # support-level classes (None: the init model's, else none)
    level_heat: bool = False  # blocks: one heatmap per support level (needs levels >= 2)
    mix: str | None = None  # "split=weight,...", as `train ofa --mix`; None: every image alike
    channels: tuple[int, ...] | None = None  # encoder widths (None: the init model's/default)
    head_channels: int | None = None  # the head's hidden width (None: the init model's/default)
    # An ImageNet-pretrained context stem added to the detector (vrs/detector/backbone.py),
    # loaded from its pinned weights (pretrained.py); None: the init model's (none by default).
    backbone: str | None = None
    # Train the backbone's weights too, at this learning rate (its batch norms keep ImageNet's
    # statistics either way); None: frozen, as loaded.
    backbone_lr: float | None = None
    # The 1x1 convolutions that carry the backbone's maps into the encoder start at zero and
    # learn at this rate (None: `lr`); the rest of a warm-started detector needs only a nudge.
    inject_lr: float | None = None
    log_every: int = 50  # steps between OUT/train_log.jsonl lines
    progress: bool = True

    def recorded(self) -> dict:
        """The settings a checkpoint records (JSON), checked again on --resume."""
        return {"data": [str(d) for d in self.data], "steps": self.steps,
                "batch_size": self.batch_size, "lr": self.lr, "warmup": self.warmup,
                "weight_decay": self.weight_decay, "seed": self.seed, "limit": self.limit,
                "augment": self.augment, "init": str(self.init) if self.init else None,
                "levels": self.levels, "level_heat": self.level_heat,
                "mix": canonical_mix(self.mix),
                "channels": list(self.channels) if self.channels else None,
                "head_channels": self.head_channels, "dim": self.dim,
                "backbone": self.backbone, "backbone_lr": self.backbone_lr,
                "inject_lr": self.inject_lr}

    def problems(self) -> list[str]:
        """Why this spec cannot run (empty when it can)."""
        out = [f"{n} must be at least 1, got {getattr(self, n)}"
               for n in ("steps", "batch_size", "checkpoint_every", "eval_every", "log_every")
               if getattr(self, n) < 1]
        if self.lr <= 0:
            out.append(f"lr must be positive, got {self.lr}")
        if self.dim is not None and not 0 < self.dim < 1:
            out.append(f"--dim must be between 0 and 1 (the darkest gain), got {self.dim}")
        if self.dim is not None and not self.augment:
            out.append("--dim darkens as part of augmentation: it cannot run without it")
        if self.level_heat and (self.levels or 0) < 2:
            out.append("--level-heat needs --levels 2 or more (the heatmaps are per level)")
        if self.backbone is not None and self.backbone not in BACKBONES:
            out.append(f"--backbone {self.backbone!r} is not known; known: "
                       f"{', '.join(BACKBONES)}")
        for name in ("backbone_lr", "inject_lr"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                out.append(f"--{name.replace('_', '-')} must be positive, got {value}")
        if self.backbone is not None and (self.channels or self.head_channels):
            out.append("--backbone with --channels/--head-channels: widen in one run, then add "
                       "the backbone in the next (widening does not know the backbone's layers)")
        if self.init is not None and not (Path(self.init) / "model.safetensors").is_file():
            out.append(f"--init {self.init} is not a detector checkpoint (no model.safetensors)")
        return out


def train_detector(spec: TrainDetectorSpec) -> dict:
    """Train (or resume) to `spec.steps` and export; returns a summary with the last figures."""
    if problems := spec.problems():
        raise ValueError("; ".join(problems))
    ckpt = _checkpoint_to_resume(spec)
    config = _run_config(spec, ckpt)
    Path(spec.out).mkdir(parents=True, exist_ok=True)
    train = SceneImages(spec.data, config, limit=spec.limit)
    val = SceneImages(spec.val, config, limit=spec.limit) if spec.val else None
    accelerator = make_accelerator()
    set_seed(spec.seed)
    model = DetectorNet(config)
    if spec.init is not None and ckpt is None:
        _init(model, Path(spec.init), spec.seed)
    if ckpt is None and _backbone_is_new(spec, config):
        model.backbone.load_imagenet(imagenet_state(config.backbone, progress=spec.progress))
    opt = torch.optim.AdamW(_param_groups(model, spec), lr=spec.lr,
                            weight_decay=spec.weight_decay)
    # Not prepared: accelerate would step a prepared scheduler once per process per step.
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: cosine_with_warmup(s, spec.warmup, spec.steps))
    model, opt = accelerator.prepare(model, opt)
    accelerator.register_for_checkpointing(sched)
    state = load_training_state(accelerator, ckpt) if ckpt else {"step": 0}
    _truncate_curve(Path(spec.out) / "curve.csv", state["step"])
    loop = _loop(accelerator, model, opt, sched, train, val, spec)
    result = run_loop(loop, state["step"], float(state.get("seconds", 0.0)))
    export(loop, result, spec, save_checkpoint, spec.out, images=len(train))
    return {"out": str(spec.out), "images": len(train), "start_step": result.start_step,
            "steps": spec.steps, "seconds": round(result.seconds, 1),
            "device": str(accelerator.device), **result.last}


def _checkpoint_to_resume(spec: TrainDetectorSpec) -> Path | None:
    """The checkpoint `--resume` continues from; refuses to clobber a run, or to resume one
    whose settings differ (its batches and schedule would no longer be the run's)."""
    ckpt = checkpoint_to_resume(spec.out, spec.resume)
    if ckpt is None:
        if spec.resume:
            print(f"--resume: no checkpoint under {checkpoints_dir(spec.out)}; starting at "
                  "step 0", file=sys.stderr)
        return None
    saved = json.loads((ckpt / STATE_FILE).read_text()).get("spec")
    if saved is not None:
        # A setting added after that run was saved had its default there.
        defaults = {f.name: f.default for f in dataclasses.fields(TrainDetectorSpec)}
        saved = {k: saved.get(k, defaults.get(k)) for k in spec.recorded()}
        diff = {k: (saved[k], v) for k, v in spec.recorded().items()
                if k not in RESUMABLE_CHANGES and saved[k] != v}
        if diff:
            named = ", ".join(f"{k}: {a!r} -> {b!r}" for k, (a, b) in sorted(diff.items()))
            raise ValueError(f"cannot resume {ckpt}: settings differ from that run ({named})")
    return ckpt


def _run_config(spec: TrainDetectorSpec, ckpt: Path | None) -> DetectorConfig:
    """The detector's config: the checkpoint's on resume, else the init model's or the
    default, with `spec.levels` when given."""
    source = ckpt if ckpt is not None else spec.init
    config = DetectorConfig()
    if source is not None:
        config = DetectorConfig.load(Path(source) / "config.json")
    if ckpt is None and spec.levels is not None:
        config = dataclasses.replace(config, levels=spec.levels, level_heat=spec.level_heat)
    if ckpt is None and spec.channels is not None:
        config = dataclasses.replace(config, channels=tuple(spec.channels))
    if ckpt is None and spec.head_channels is not None:
        config = dataclasses.replace(config, head_channels=spec.head_channels)
    if ckpt is None and spec.backbone is not None:
        config = dataclasses.replace(config, backbone=spec.backbone)
    return config


def _param_groups(model: DetectorNet, spec: TrainDetectorSpec) -> list[dict]:
    """The optimiser's groups: the detector's own layers at `spec.lr`, the 1x1 convolutions
    that carry the backbone's maps at `spec.inject_lr` (else `spec.lr`), and the backbone's
    weights at `spec.backbone_lr` when it is trained (else left out, frozen); the schedule
    scales every group alike."""
    if model.backbone is None:
        for name in ("backbone_lr", "inject_lr"):
            if getattr(spec, name) is not None:
                raise ValueError(f"--{name.replace('_', '-')}: this detector has no backbone "
                                 f"(give --backbone, or --init a detector that has one)")
        return [{"params": list(model.parameters())}]
    own = [p for name, p in model.named_parameters()
           if not name.startswith(("backbone.", "inject."))]
    groups = [{"params": own},
              {"params": list(model.inject.parameters()), "lr": spec.inject_lr or spec.lr}]
    if spec.backbone_lr is not None:
        model.backbone.requires_grad_(True)
        groups.append({"params": list(model.backbone.parameters()), "lr": spec.backbone_lr})
    return groups


def _backbone_is_new(spec: TrainDetectorSpec, config: DetectorConfig) -> bool:
    """Whether the run adds a backbone the init model did not have: then its ImageNet weights
    are loaded (an init model that had one brings its own, as trained)."""
    if config.backbone is None:
        return False
    if spec.init is None:
        return True
    return DetectorConfig.load(Path(spec.init) / "config.json").backbone is None


def _init(model: DetectorNet, path: Path, seed: int) -> None:
    """Start from the checkpoint at `path`: copied as is (`init_from`, which also adds head
    parts), or widened to `model`'s widths function-preservingly (`widen`) when they differ."""
    old = load_checkpoint(path)
    same = (old.config.channels, old.config.head_channels) == (model.config.channels,
                                                              model.config.head_channels)
    if same:
        init_from(model, path)
        return
    try:
        model.load_state_dict(widen(old, model.config, seed=seed).state_dict())
    except ValueError as e:
        raise ValueError(f"--init {path}: {e}") from None


def _truncate_curve(path: Path, step: int) -> None:
    """Drop curve rows past `step`: a resumed run re-measures them (no duplicate rows)."""
    if not path.exists():
        return
    rows = list(csv.DictReader(path.open()))
    keep = [r for r in rows if int(r["step"]) <= step]
    if len(keep) == len(rows):
        return
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(keep)


def _loop(accelerator: Accelerator, model: torch.nn.Module, opt: torch.optim.Optimizer,
          sched: torch.optim.lr_scheduler.LRScheduler, train: SceneImages,
          val: SceneImages | None, spec: TrainDetectorSpec) -> Loop:
    """The shared loop with the detector's batches (a function of (seed, step, process), so a
    resumed run draws the same ones), dense losses and validation figures (OUT/curve.csv)."""
    config, p = train.config, image_weights(train.splits, spec.mix)
    start = time.perf_counter()

    def compute_losses(step: int) -> dict[str, torch.Tensor]:
        rng = np.random.default_rng([spec.seed, step, accelerator.process_index])
        batch = train.batch(rng.choice(len(train), spec.batch_size, p=p).tolist(),
                            rng if spec.augment else None, dim=spec.dim)
        batch = {k: v.to(accelerator.device) for k, v in batch.items()}
        return detector_losses(model(batch["image"]), batch, config)

    def evaluate(step: int) -> dict:
        return _evaluate(accelerator, model, val, spec, step, start)

    return Loop(accelerator, model, opt, sched, Path(spec.out), spec.steps, config,
                compute_losses=compute_losses, checkpoint_every=spec.checkpoint_every,
                log_every=spec.log_every, evaluate=evaluate if val is not None else None,
                eval_every=spec.eval_every, state_extra=lambda: {"spec": spec.recorded()},
                desc="train detector", progress=spec.progress)


def canonical_mix(mix: str | None) -> str | None:
    """One spelling per mixture ("b=2,a=1" and "a=1.0, b=2" -> "a=1.0,b=2.0"), so that
    --resume compares what a mix means, not how it was typed; unparseable text is kept as is
    (the run itself rejects it, naming the problem)."""
    if not mix:
        return None
    names = [part.partition("=")[0].strip() for part in mix.split(",") if part.strip()]
    try:
        weights = parse_mix(mix, names)
    except ValueError:
        return mix
    return ",".join(f"{n}={w}" for n, w in sorted(weights.items()))


def image_weights(splits: list[str], mix: str | None) -> np.ndarray | None:
    """Sampling probability of each image (N,) so that split s is drawn with probability
    weight_s / sum(weights), whatever its size; None (every image alike) without a mix. Why:
    stacked blocks (block_stack) are the rare, hard case, and the support-level head learns
    from them alone."""
    if not mix:
        return None
    names = list(dict.fromkeys(splits))
    weights = parse_mix(mix, names)
    counts = {name: splits.count(name) for name in names}
    p = np.array([weights.get(s, 0.0) / counts[s] for s in splits])
    return p / p.sum()


def _evaluate(accelerator: Accelerator, model: torch.nn.Module, val: SceneImages,
              spec: TrainDetectorSpec, step: int, start: float) -> dict:
    """Detection figures on the validation scenes, appended to OUT/curve.csv."""
    metrics = detection_metrics(accelerator.unwrap_model(model), val)
    row = {"step": step, "samples": step * spec.batch_size,
           "seconds": round(time.perf_counter() - start, 1), **metrics}
    path = Path(spec.out) / "curve.csv"
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)
    return metrics
