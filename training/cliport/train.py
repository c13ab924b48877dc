"""Train the CLIPort actor on oracle demonstrations with `accelerate`.

    codeplan train cliport --demos data/demos --out runs/actor --steps 20000 --batch-size 8

The losses are Transporter's: cross-entropy of the pick logits over all H*W pixels against the
demonstrated pick pixel, and of the place logits over all R*H*W (rotation, pixel) cells against
the demonstrated place and rotation bin, with the place network fed the demonstrated pick
(teacher forcing). One `Accelerator()` runs it on the CPU here and on several GPUs under
`accelerate launch`. The steps are `training.loop`'s, shared by every model family: every
`checkpoint_every` steps the full state (model, AdamW, RNG, step) is saved under
OUT/checkpoints/; `resume` continues from the latest one. At the end the model is exported as
OUT/config.json + OUT/model.safetensors, which `CliportActor` loads; config.json's "training"
records how it was made (`training.loop.training_record`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from accelerate.utils import set_seed
from torch.utils.data import DataLoader, RandomSampler

from ravens_env.cliport.checkpoint import load_checkpoint, save_checkpoint
from ravens_env.cliport.color_match import ColorMatch
from ravens_env.cliport.config import CliportConfig, preset
from ravens_env.cliport.language import (
    CachedEncoder,
    PrecomputedEncoder,
    language_dim,
    make_encoder,
)
from ravens_env.cliport.policy import CliportModel, count_parameters
from ravens_env.cliport.transport import downsample, to_low_res
from training.cliport.data import DemoDataset
from training.loop import Loop, device_name, export, make_accelerator, run_loop, spec_json
from training.schedules import cosine_with_warmup
from training.state import checkpoint_to_resume, load_training_state

STREAMS = ("pick", "place")  # CliportModel's two networks, by attribute name
COLOR_MATCH_LR_SCALE = 30.0  # colour-match metrics learn this much faster (`param_groups`)


@dataclass
class TrainCliportSpec:
    """Everything a training run depends on (the CLI fills it)."""

    demos: Path
    out: Path
    steps: int
    batch_size: int = 8
    preset: str = "cpu"
    lr: float = 1e-4  # Transporter's learning rate (its peak here)
    warmup: int = 200  # linear warmup steps, then cosine decay to min_lr_ratio * lr
    min_lr_ratio: float = 0.1
    weight_decay: float = 1e-4
    checkpoint_every: int = 500
    keep_checkpoints: int = 2
    resume: bool = False
    init: Path | None = None  # start from this trained actor's weights and config (fine-tune)
    freeze: tuple[str, ...] = ()  # streams of the init actor kept as they are ("pick", "place")
    seed: int = 0
    workers: int = 0  # DataLoader worker processes
    augment: bool = True
    shift_sigma: float = 0.0  # px per axis of the augmentation's random shift (0: rotation only)
    color_match_weight: float = 0.0  # weight of the colour maps' grounding loss (needs maps)
    language: str | None = None  # override the preset's encoder (e.g. "hash" without MiniLM)
    embeddings: Path | None = None  # precomputed instruction vectors (a machine without MiniLM)
    max_demos: int | None = None  # train on the first N demo files only (lowest seeds)
    config_overrides: dict = field(default_factory=dict)  # any CliportConfig field
    log_every: int = 10
    progress: bool = True

    def problems(self) -> list[str]:
        """Why this spec cannot run (empty when it can)."""
        out = []
        for name in ("steps", "batch_size", "checkpoint_every", "log_every"):
            if getattr(self, name) < 1:
                out.append(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.color_match_weight < 0:
            out.append(f"color_match_weight must be >= 0, got {self.color_match_weight}")
        if self.shift_sigma < 0:
            out.append(f"shift_sigma must be >= 0, got {self.shift_sigma}")
        if self.lr <= 0:
            out.append(f"lr must be positive, got {self.lr}")
        model_options = [*self.config_overrides, *(["language"] if self.language else [])]
        if self.init is not None and model_options:
            out.append("init takes the trained actor's own config: drop the model options "
                       f"({', '.join(model_options)})")
        out += self._freeze_problems()
        if self.warmup < 0 or not 0 <= self.min_lr_ratio <= 1:
            out.append(f"warmup must be >= 0 and min_lr_ratio in [0, 1], got {self.warmup}, "
                       f"{self.min_lr_ratio}")
        return out

    def _freeze_problems(self) -> list[str]:
        """Why `freeze` cannot run: an unknown stream, no init to keep, or nothing left."""
        unknown = sorted(set(self.freeze) - set(STREAMS))
        if unknown:
            return [f"freeze: unknown stream(s) {', '.join(unknown)} (choose from "
                    f"{', '.join(STREAMS)})"]
        if self.freeze and self.init is None:
            return ["freeze keeps part of a trained actor: it needs init"]
        if set(self.freeze) == set(STREAMS):
            return ["freeze: both streams frozen leaves nothing to train"]
        return []


def actor_losses(model: torch.nn.Module, batch: dict[str, torch.Tensor],
                 color_match_weight: float = 0.0, stride: int = 1) -> dict:
    """{'pick', 'place', 'loss'}: Transporter's cross-entropies over pixels / (rotation, pixel),
    plus 'color' (`color_match_loss`, weighted into 'loss') when `color_match_weight` > 0;
    `stride` is the networks' downsampling (`config.stride`)."""
    pick_logits, place_logits = model(batch["image"], batch["lang"], batch["pick"])
    h, w = place_logits.shape[-2:]  # (B, R, H, W); pick_logits (B, 1, H, W)
    pick_target = batch["pick"][:, 0] * w + batch["pick"][:, 1]  # (B,) flat pixel index
    place_target = (batch["rotation"] * h + batch["place"][:, 0]) * w + batch["place"][:, 1]
    pick = F.cross_entropy(pick_logits.flatten(1), pick_target)
    place = F.cross_entropy(place_logits.flatten(1), place_target)
    if color_match_weight <= 0:
        return {"pick": pick, "place": place, "loss": pick + place}
    color = color_match_loss(model, batch["image"], batch["lang"], batch["pick"],
                             batch["place"], stride)
    return {"pick": pick, "place": place, "color": color,
            "loss": pick + place + color_match_weight * color}


def color_match_loss(model: torch.nn.Module, x: torch.Tensor, lang: torch.Tensor,
                     pick: torch.Tensor, place: torch.Tensor, stride: int) -> torch.Tensor:
    """Auxiliary grounding loss: in every `ColorMatch` of `model`, the first named colour's map
    should peak at the demonstrated pick pixel and the second's at the place pixel
    (cross-entropy over pixels with the maps' log, -distance, as logits). Why: through the
    policy loss alone the metric stayed flat (0.8-1.0 on several palette colours); the demos
    already say which pixel has the named colour, so no new labels are needed.

    x (B, 4, H, W) network input; pick, place (B, 2) full-res (row, col); stride: the
    networks' downsampling. Returns the mean over modules and mentions (0 without maps).
    """
    low = downsample(x, stride)  # (B, 4, H/s, W/s)
    w = low.shape[-1]
    targets = [to_low_res(p, stride).round().long() for p in (pick, place)]
    terms = []
    for module in model.modules():
        if isinstance(module, ColorMatch):
            d2 = module.distances(low[:, :3], lang)  # (B, M, h, w)
            for m, t in enumerate(targets):
                logits = -d2[:, m].flatten(1)  # (B, h*w): log of the maps
                terms.append(F.cross_entropy(logits, t[:, 0] * w + t[:, 1]))
    return torch.stack(terms).mean() if terms else x.new_zeros(())


def param_groups(model: torch.nn.Module, spec: TrainCliportSpec) -> list[dict]:
    """AdamW groups: the colour-match metrics (and the colour priors' gains) at
    COLOR_MATCH_LR_SCALE x lr and no weight decay, everything else at lr; a frozen stream's
    parameters (`spec.freeze`) are left out. Why the scale: those dozen-odd numbers must travel
    far (the word gain from 1 to ~0.5, fit on the palette), and at the network's lr Adam moves
    each by at most ~lr per step, too little in a few thousand steps (measured: 1.0 -> 0.92-1.06
    after 400 steps)."""
    match = [p for m in model.modules() if isinstance(m, ColorMatch) for p in m.parameters()]
    match += [p for name, p in model.named_parameters() if name.endswith("prior_gain")]
    ids = {id(p) for p in match}
    rest = [p for p in model.parameters() if id(p) not in ids and p.requires_grad]
    match = [p for p in match if p.requires_grad]
    groups = [{"params": rest}]
    if match:
        groups.append({"params": match, "lr": spec.lr * COLOR_MATCH_LR_SCALE,
                       "weight_decay": 0.0})
    return groups


def resolve_config(spec: TrainCliportSpec) -> tuple[CliportConfig, Path | None]:
    """The model config and the checkpoint to resume from: a resumed run keeps the config it
    was started with; a fresh run refuses an OUT that already has checkpoints."""
    ckpt = checkpoint_to_resume(spec.out, spec.resume)
    if ckpt is not None:
        return CliportConfig.load(ckpt / "config.json"), ckpt
    if spec.init is not None:
        config_file = Path(spec.init) / "config.json"
        if not config_file.is_file():
            raise ValueError(f"init: no trained actor at {spec.init} (no config.json there)")
        return CliportConfig.load(config_file), None
    overrides = dict(spec.config_overrides)
    if spec.language:
        overrides["language"] = spec.language
        overrides.setdefault("lang_dim", language_dim(spec.language))
    return preset(spec.preset, **overrides), None


def _batches(loader: DataLoader) -> Iterator[dict[str, torch.Tensor]]:
    while True:  # the sampler draws with replacement; an "epoch" is only a refill
        empty = True
        for batch in loader:
            empty = False
            yield batch
        if empty:  # a refill that gives nothing would spin for ever
            raise RuntimeError("the demo loader yields no batch: fewer samples per process "
                               "than --batch-size")


def _make_loader(dataset: DemoDataset, spec: TrainCliportSpec, processes: int = 1
                 ) -> DataLoader:
    """Draws with replacement, at least one batch per process per refill: accelerate splits
    the sampler's draws among the processes, and with fewer than a batch each (`drop_last`)
    a process would get none."""
    sampler = RandomSampler(dataset, replacement=True,
                            num_samples=max(len(dataset), spec.batch_size * processes))
    return DataLoader(dataset, batch_size=spec.batch_size, sampler=sampler, drop_last=True,
                      num_workers=spec.workers, persistent_workers=spec.workers > 0)


def train_cliport(spec: TrainCliportSpec) -> dict:
    """Train (or resume) until `spec.steps`, export the model; returns a summary dict."""
    problems = spec.problems()
    if problems:
        raise ValueError("; ".join(problems))
    Path(spec.out).mkdir(parents=True, exist_ok=True)
    loop, dataset, ckpt = _setup(spec)
    acc = loop.accelerator
    state = load_training_state(acc, ckpt) if ckpt else {"step": 0}
    result = run_loop(loop, state["step"], float(state.get("seconds", 0.0)))
    done = result.steps - result.start_step
    summary = {"out": str(spec.out), "preset": loop.config.preset,
               "parameters": count_parameters(acc.unwrap_model(loop.model))["total"],
               "demo_episodes": len(dataset.files), "demo_steps": len(dataset),
               "start_step": result.start_step, "steps": result.steps,
               "seconds": round(result.seconds, 2), "total_seconds": round(result.total_seconds, 2),
               "steps_per_s": round(done / result.seconds, 3) if done and result.seconds > 0
               else 0.0, "device": device_name(acc), "processes": acc.num_processes,
               **{f"final_{k}": v for k, v in result.last.items()}}
    export(loop, result, spec, save_checkpoint, spec.out, demo_episodes=len(dataset.files),
           demo_steps=len(dataset))
    return summary


def _setup(spec: TrainCliportSpec) -> tuple[Loop, DemoDataset, Path | None]:
    """Accelerator, seed, config, data, model, AdamW and schedule, prepared, in the order that
    fixes what a seed gives; returns the loop to run, the demos and the checkpoint to resume."""
    accelerator = make_accelerator()
    set_seed(spec.seed)
    config, ckpt = resolve_config(spec)
    if spec.color_match_weight and not config.color_match_dim:
        raise ValueError("color_match_weight needs colour-match maps (--color-match E)")
    dataset = DemoDataset(spec.demos, config, _encoder(spec, config), augment=spec.augment,
                          max_episodes=spec.max_demos, shift_sigma=spec.shift_sigma)
    torch.backends.cudnn.benchmark = True  # fixed input sizes: let cuDNN pick its fastest convs
    model = CliportModel(config)
    if spec.init is not None and ckpt is None:  # a resumed run reloads its own weights
        model.load_state_dict(load_checkpoint(spec.init)[0].state_dict())
    for stream in spec.freeze:  # a resumed run freezes the same streams (its spec is the same)
        getattr(model, stream).requires_grad_(False)
    optimizer = torch.optim.AdamW(param_groups(model, spec), lr=spec.lr,
                                  weight_decay=spec.weight_decay)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: cosine_with_warmup(
        s, spec.warmup, spec.steps, spec.min_lr_ratio))
    model, optimizer, scheduler, loader = accelerator.prepare(
        model, optimizer, scheduler, _make_loader(dataset, spec, accelerator.num_processes))
    batches = _batches(loader)
    loop = Loop(accelerator, model, optimizer, scheduler, Path(spec.out), spec.steps, config,
                compute_losses=lambda step: actor_losses(
                    model, next(batches), spec.color_match_weight, config.stride),
                checkpoint_every=spec.checkpoint_every, keep_checkpoints=spec.keep_checkpoints,
                log_every=spec.log_every, state_extra=lambda: {"spec": spec_json(spec)},
                desc="train cliport", show=("pick", "place"), progress=spec.progress)
    return loop, dataset, ckpt


def _encoder(spec: TrainCliportSpec, config: CliportConfig) -> CachedEncoder:
    """The config's sentence encoder, or vectors it computed earlier (`spec.embeddings`)."""
    if spec.embeddings is None:
        return make_encoder(config.language, config.lang_dim, config.language_path)
    return PrecomputedEncoder.load(spec.embeddings, config.language, config.lang_dim)
