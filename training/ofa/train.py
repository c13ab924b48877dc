"""Train the OFA-style VQA model (`vrs.ofa`) on `codeplan datagen vqa` data with `accelerate`.

    codeplan train ofa --data data/vqa-train --val data/vqa-val --out runs/vqa-tiny \
        --preset tiny --steps 20000 --batch-size 64 [--mix block_bowl=2,unseen=1] [--resume]

Why these choices:
  - One `Accelerator()`: the CPU here, several GPUs under `accelerate launch` (each process
    draws its own batches from the mixture, seeded by (seed, process, step)).
  - Teacher-forced cross-entropy over the answer tokens + EOS, as OFA trains VQA (but
    averaged per question, so long object lists do not dominate); evaluation decodes as the
    deployed reasoner does (trie-constrained greedy).
  - AdamW with linear warmup then cosine decay to `min_lr_ratio` * lr. The default lr (5e-4)
    is for training from scratch; the seed paper fine-tuned a pretrained OFA at 5e-5, which is
    the value to use with `--init` (optionally `--freeze-encoder`, the paper's choice:
    only the decoder learns).
  - Resumable: every `save_every` steps OUT/checkpoints/step_N/ holds model, AdamW, the lr
    schedule, RNG states and the counters (written under a temporary name, then renamed; see
    `training.state`); `--resume` continues from the latest, and since batches are a
    function of the step, the resumed run sees the batches the uninterrupted one would have.
  - Multi-task stage (OFA's recipe at this scale): `--tasks pretrain` trains on detection,
    grounding, region description, counts and object lists (`training.ofa.tasks`) made from
    the scenes, with location tokens in the tokenizer; then `--init RUN/model --tasks vqa
    --freeze-encoder --lr 5e-5` fine-tunes on VQA as the seed paper does. `--stem-init
    checkpoints/detector-tiny` starts a `detector`-stem model's image stem from the project's
    detector, as OFA starts from a pretrained ResNet. The learning curve always measures VQA.
  - Learning curve: OUT/curve.jsonl (`training.ofa.eval`) every `eval_every` steps.
  - The steps themselves are `training.loop`'s, shared by every model family (progress bar,
    OUT/train_log.jsonl, checkpoints, resume).
  - Export: OUT/model/ (config.json + model.safetensors + tokenizer.json), loadable with
    `vrs.loading.load_reasoner("OUT/model")`; config.json's "training" says how it was made
    (`training.loop.training_record`).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import torch
import torch.nn.functional as F
from accelerate import Accelerator
from accelerate.utils import set_seed

from training.loop import Loop, export, make_accelerator, run_loop, spec_json
from training.ofa.data import (
    IGNORE,
    VQA,
    MixtureSampler,
    clevr_splits,
    collate,
    dataset_splits,
    holdout,
    load_splits,
    parse_mix,
)
from training.ofa.eval import Curve, eval_picks, evaluate, question_only_baseline
from training.ofa.tasks import TASKS, prompts
from training.schedules import cosine_with_warmup
from training.state import checkpoint_to_resume, load_training_state
from vrs.ofa.checkpoint import load_init, load_tokenizer, model_from_config, save_checkpoint
from vrs.ofa.config import PRESETS, preset
from vrs.ofa.model import OfaVqa, count_parameters, init_weights, load_detector_stem
from vrs.ofa.patches import PATCH_CLASSES
from vrs.ofa.tokenizer import LOCATION_BINS, QuestionTokenizer, train_tokenizer
from vrs.ofa.trie import build_tries

PAPER_FINETUNE_LR = 5e-5  # the seed paper's VQA fine-tuning lr for a pretrained OFA


@dataclass
class TrainOfaSpec:
    """Everything a training run depends on (the CLI fills it)."""

    data: list[Path]
    out: Path
    steps: int
    val: Path | None = None  # held-out dataset; None: hold out `holdout` of the training images
    mix: str | None = None  # "split=weight,..."; None: every split of the data, weight 1
    preset: str = "tiny"
    batch_size: int = 64  # questions per optimizer step (per process)
    questions_per_image: int = 8  # questions sharing one image encoding in a batch
    lr: float = 5e-4
    warmup: int = 500  # steps of linear warmup
    min_lr_ratio: float = 0.05  # the cosine ends at this fraction of lr
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    label_smoothing: float = 0.0
    patch_loss: float = 0.0  # > 0: weight of the per-patch object loss (`vrs.ofa.patches`)
    freeze_encoder: bool = False
    init: Path | None = None  # start from this checkpoint directory (fine-tuning)
    tasks: str = VQA  # comma-separated: "vqa" and/or multi-task names; "pretrain" = all of those
    stem_init: Path | None = None  # detector checkpoint whose encoder starts a detector stem
    resume: bool = False
    eval_every: int = 1000
    eval_questions: int = 2000  # 0: every held-out question
    holdout: float = 0.05
    save_every: int = 1000
    keep_checkpoints: int = 2
    seed: int = 0
    threads: int = 1  # torch CPU threads (1: measured fastest on the shared 2-core machine);
    # 0 leaves torch's default (all cores)
    log_every: int = 50
    config_overrides: dict = field(default_factory=dict)  # any OfaConfig field (tests, sweeps)
    progress: bool = True

    def problems(self) -> list[str]:
        """Why this spec cannot run (empty when it can); reads only small json files."""
        out = [f"{n} must be at least 1, got {getattr(self, n)}" for n in
               ("steps", "batch_size", "questions_per_image", "eval_every", "save_every",
                "log_every") if getattr(self, n) < 1]
        out += [f"{n} must be >= 0, got {getattr(self, n)}" for n in
                ("warmup", "eval_questions", "threads", "weight_decay", "label_smoothing",
                 "patch_loss")
                if getattr(self, n) < 0]
        if not self.lr > 0:
            out.append(f"lr must be positive, got {self.lr}")
        if not 0 <= self.holdout < 1:
            out.append(f"holdout must be in [0, 1), got {self.holdout}")
        if self.preset not in PRESETS:
            out.append(f"unknown preset {self.preset!r}; presets: {', '.join(PRESETS)}")
        return out + self._data_problems()

    def _data_problems(self) -> list[str]:
        out, splits = [], []
        if not self.data:
            out.append("no --data directory given")
        for d in self.data:
            try:
                splits += dataset_splits(d)
            except ValueError as e:
                out.append(f"--data: {e}")
        if self.val is not None:
            try:
                dataset_splits(self.val)
            except ValueError as e:
                out.append(f"--val: {e}")
        if splits:
            try:
                parse_mix(self.mix, list(dict.fromkeys(splits)))
            except ValueError as e:
                out.append(str(e))
        if self.patch_loss > 0 and any(not clevr_splits(d) for d in self.data):
            out.append("--patch-loss needs the scenes of a `codeplan datagen vqa` output's CLEVR "
                       "files (<split>/scenes.json); an hf/-only dataset has none")
        if self.init is not None and not (Path(self.init) / "config.json").is_file():
            out.append(f"--init {self.init} is not a checkpoint directory (no config.json)")
        if self.stem_init is not None and self.init is not None:
            out.append("--stem-init starts a fresh model; it cannot be used with --init")
        if (self.stem_init is not None
                and not (Path(self.stem_init) / "model.safetensors").is_file()):
            out.append(f"--stem-init {self.stem_init} is not a detector checkpoint directory")
        stem = self.config_overrides.get("stem", PRESETS.get(self.preset, PRESETS["tiny"]).stem)
        if self.stem_init is not None and self.init is None and stem != "detector":
            out.append(f"--stem-init needs a detector stem (--preset detector); preset "
                       f"{self.preset!r} has a {stem!r} stem")
        try:
            self.task_list()
        except ValueError as e:
            out.append(str(e))
        return out

    def task_list(self) -> tuple[str, ...]:
        """`tasks` expanded ("pretrain" = every multi-task task); ValueError on a bad name."""
        names: list[str] = []
        for t in (x.strip() for x in self.tasks.split(",") if x.strip()):
            expanded = TASKS if t == "pretrain" else (t,)
            bad = [x for x in expanded if x not in (VQA, *TASKS)]
            if bad:
                raise ValueError(f"--tasks: unknown task {bad[0]!r}; tasks: vqa, pretrain, "
                                 f"{', '.join(TASKS)}")
            names += expanded
        if not names:
            raise ValueError("--tasks names no task")
        return tuple(dict.fromkeys(names))

    def check(self) -> None:
        """Raise ValueError naming every problem."""
        problems = self.problems()
        if problems:
            raise ValueError("; ".join(problems))


def vqa_loss(model: torch.nn.Module, batch: dict[str, torch.Tensor],
             label_smoothing: float = 0.0, patch_weight: float = 0.0
             ) -> dict[str, torch.Tensor]:
    """{"loss": what is optimised, "answer": the answer part, ["patch": the patch part]}.

    The answer part: teacher-forced cross-entropy over answer tokens + EOS, averaged per
    question first, then over questions: a 20-token object list weighs as much as a 2-token
    "yes" (a plain token average would let list_objects questions dominate the gradient).
    With `patch_weight` > 0, plus that weight times the patch head's binary cross-entropy
    against batch["patch_targets"] (which objects each image patch holds), summed over the
    classes of a patch and averaged over patches."""
    args = (batch["images"], batch["image_index"], batch["questions"], batch["answer_in"])
    if patch_weight > 0:
        logits, patch_logits = model(*args, with_patches=True)  # (B, T, V), (I, N, K)
    else:
        logits = model(*args)
    target = batch["answer_out"]  # (B, T), IGNORE on padding
    per_token = F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=IGNORE,
                                label_smoothing=label_smoothing, reduction="none")
    per_token = per_token.view(target.shape)  # (B, T), 0 where ignored
    tokens = (target != IGNORE).sum(dim=1).clamp(min=1)  # (B,)
    answer = (per_token.sum(dim=1) / tokens).mean()
    if patch_weight <= 0:
        return {"loss": answer, "answer": answer}
    # summed over a patch's classes (a rare class weighs as in a per-patch loss, not 1/K of
    # it), then averaged over patches
    patch = F.binary_cross_entropy_with_logits(
        patch_logits.float(), batch["patch_targets"], reduction="none").sum(-1).mean()
    return {"loss": answer + patch_weight * patch, "answer": answer, "patch": patch}


def add_patch_head(model: OfaVqa) -> OfaVqa:
    """Give `model` a fresh patch head of `len(PATCH_CLASSES)` labels (its config says so,
    so checkpoints rebuild it); a model that has one is returned as it is."""
    if not isinstance(model, OfaVqa):
        raise ValueError(f"--patch-loss needs this project's OFA-style model, not "
                         f"{type(model).__name__}")
    if model.config.patch_labels == len(PATCH_CLASSES):
        return model
    if model.config.patch_labels:
        raise ValueError(f"model has a patch head of {model.config.patch_labels} labels; "
                         f"this code's is {len(PATCH_CLASSES)}")
    model.config = replace(model.config, patch_labels=len(PATCH_CLASSES))
    model.patch_head = torch.nn.Linear(model.config.d_model, len(PATCH_CLASSES))
    init_weights(model.patch_head)
    return model


def build_model(spec: TrainOfaSpec, ckpt: Path | None) -> tuple[OfaVqa, QuestionTokenizer]:
    """The model and tokenizer to train: a resumed run's (weights come with its state), an
    --init checkpoint's, or a fresh preset with a freshly trained tokenizer."""
    out = Path(spec.out)
    if ckpt is not None:
        return model_from_config(ckpt / "config.json"), load_tokenizer(out / "tokenizer.json")
    if spec.init is not None:
        model, tokenizer = load_init(spec.init)  # ours, or an official OFA checkpoint
        if spec.config_overrides:
            raise ValueError("config overrides cannot change an --init checkpoint's model")
    else:
        multi = set(spec.task_list()) != {VQA} or spec.preset == "detector"
        tokenizer = (train_tokenizer(location_bins=LOCATION_BINS, prompts=prompts()) if multi
                     else train_tokenizer())
        config = preset(spec.preset, vocab_size=tokenizer.vocab_size, **spec.config_overrides)
        model = OfaVqa(config)
        if spec.stem_init is not None:
            load_detector_stem(model, spec.stem_init)
    if spec.patch_loss > 0:
        model = add_patch_head(model)
    tokenizer.save(out / "tokenizer.json")  # the run's tokenizer, read back on --resume
    return model.train(), tokenizer


def _optimizer(model: OfaVqa, spec: TrainOfaSpec) -> torch.optim.Optimizer:
    """AdamW over the trainable parameters; no weight decay on biases, norms and the learned
    position tables (`*_pos`, `stem.row_embed`, `stem.col_embed`)."""
    if spec.freeze_encoder:
        for p in model.encoder_parameters():
            p.requires_grad_(False)
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    decay = [p for n, p in named if p.ndim >= 2 and not n.endswith(("_pos", "_embed"))]
    rest = [p for n, p in named if not (p.ndim >= 2 and not n.endswith(("_pos", "_embed")))]
    groups = [{"params": decay, "weight_decay": spec.weight_decay},
              {"params": rest, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=spec.lr, betas=(0.9, 0.999), eps=1e-8)


def _data(spec: TrainOfaSpec, tokenizer: QuestionTokenizer) -> tuple[dict, dict, dict]:
    """(train splits, mixture weights, held-out splits)."""
    known = list(dict.fromkeys(s for d in spec.data for s in dataset_splits(d)))
    weights = parse_mix(spec.mix, known)
    splits = load_splits(spec.data, tokenizer, names=list(weights), tasks=spec.task_list())
    if spec.val is not None:
        return splits, weights, load_splits([spec.val], tokenizer)
    train, held = holdout(splits, spec.holdout)
    return train, weights, {n: s.rows_of(VQA) for n, s in held.items()}


@dataclass
class Run:
    """What one training process holds while it runs."""

    spec: TrainOfaSpec
    accelerator: Accelerator
    model: torch.nn.Module
    tokenizer: QuestionTokenizer
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LambdaLR
    sampler: MixtureSampler
    eval_set: list
    curve: Curve
    counters: dict  # step, samples, wall_s, train_s (cumulative over resumptions)
    state: dict = field(default_factory=dict)  # the resumed trainer_state.json ({} when fresh)
    losses: list[float] = field(default_factory=list)  # since the last evaluation
    batch_questions: int = 0  # questions in the step's batch (this process)


def _setup(spec: TrainOfaSpec) -> Run:
    out = Path(spec.out)
    out.mkdir(parents=True, exist_ok=True)
    accelerator = make_accelerator()
    set_seed(spec.seed)
    ckpt = checkpoint_to_resume(out, spec.resume)
    model, tokenizer = build_model(spec, ckpt)
    train, weights, held = _data(spec, tokenizer)
    sampler = MixtureSampler(train, weights, spec.batch_size, spec.questions_per_image,
                             seed=(spec.seed, accelerator.process_index))
    optimizer = _optimizer(model, spec)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: cosine_with_warmup(s, spec.warmup, spec.steps, spec.min_lr_ratio))
    model, optimizer = accelerator.prepare(model, optimizer)
    accelerator.register_for_checkpointing(scheduler)
    counters = {"step": 0, "samples": 0, "wall_s": 0.0, "train_s": 0.0}
    curve = Curve(out / "curve.jsonl")
    eval_set = eval_picks(held, spec.eval_questions, seed=spec.seed)
    state = {}
    if ckpt is not None:
        state = load_training_state(accelerator, ckpt)
        counters = {k: state[k] for k in counters}
        if accelerator.is_main_process:
            curve.truncate_after(counters["step"])
    elif accelerator.is_main_process:
        curve.path.unlink(missing_ok=True)
        vqa_train = {n: s.rows_of(VQA) for n, s in train.items()}
        curve.append({"baseline": {"question_only": question_only_baseline(vqa_train, eval_set),
                                   "train_images": {n: len(s.images) for n, s in train.items()},
                                   "eval_images": len(eval_set), "mix": weights}})
    return Run(spec, accelerator, model, tokenizer, optimizer, scheduler, sampler, eval_set,
               curve, counters, state)


def train_ofa(spec: TrainOfaSpec, on_step: Callable[[int], None] | None = None) -> dict:
    """Train (or resume) until `spec.steps`, evaluate, export OUT/model; returns a summary.
    `on_step(step)` is called after every optimizer step (tests use it to interrupt a run)."""
    spec.check()
    if spec.threads:
        torch.set_num_threads(spec.threads)
    run = _setup(spec)
    start = run.counters["step"]
    if start == 0:
        _evaluate(run, float("nan"))
    loop = _loop(run, on_step)
    result = run_loop(loop, start, float(run.state.get("seconds", 0.0)))
    acc = run.accelerator
    model = acc.unwrap_model(run.model)
    summary = {"out": str(spec.out), "model": str(Path(spec.out) / "model"),
               "preset": model.config.preset, "parameters": count_parameters(model),
               "start_step": start, **run.counters, "device": str(acc.device),
               "processes": acc.num_processes, "threads": torch.get_num_threads()}
    summary["samples_per_s"] = round(run.counters["samples"] / max(run.counters["train_s"],
                                                                   1e-9), 2)  # over all runs
    export(loop, result, spec, partial(save_checkpoint, tokenizer=run.tokenizer),
           Path(spec.out) / "model", samples=run.counters["samples"],
           train_seconds=round(run.counters["train_s"], 2))
    if acc.is_main_process:
        evals = [r for r in run.curve.records() if "step" in r]
        summary["last_eval"] = evals[-1] if evals else None
        (Path(spec.out) / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    acc.wait_for_everyone()
    return summary


def _loop(run: Run, on_step: Callable[[int], None] | None) -> Loop:
    """The shared loop with this family's batches (a function of the step: `MixtureSampler`),
    gradient clipping, counters (samples, train and wall seconds) and curve (OUT/curve.jsonl)."""
    spec, acc, c = run.spec, run.accelerator, run.counters
    config, tok = acc.unwrap_model(run.model).config, run.tokenizer

    def compute_losses(step: int) -> dict[str, torch.Tensor]:
        picks = run.sampler.batch(step)
        batch = {k: v.to(acc.device) for k, v in
                 collate(picks, config, tok.pad_id, tok.bos_id, tok.eos_id,
                         patches=spec.patch_loss > 0).items()}
        run.batch_questions = len(batch["questions"])
        return vqa_loss(run.model, batch, spec.label_smoothing, spec.patch_loss)

    def after_step(step: int, losses: dict[str, float], seconds: float) -> dict:
        c["step"] = step
        c["samples"] += run.batch_questions * acc.num_processes
        c["train_s"] += seconds
        c["wall_s"] += seconds
        run.losses.append(losses["loss"])
        return {"samples": c["samples"], "train_s": round(c["train_s"], 2)}

    def evaluate(step: int) -> None:
        _evaluate(run, sum(run.losses) / len(run.losses) if run.losses else float("nan"))
        run.losses = []

    return Loop(acc, run.model, run.optimizer, run.scheduler, Path(spec.out), spec.steps,
                config, compute_losses=compute_losses, checkpoint_every=spec.save_every,
                keep_checkpoints=spec.keep_checkpoints, log_every=spec.log_every,
                grad_clip=spec.grad_clip, evaluate=evaluate, eval_every=spec.eval_every,
                after_step=after_step, state_extra=lambda: {**c, "spec": spec_json(spec)},
                on_step=on_step, desc="train ofa", progress=spec.progress)


def _evaluate(run: Run, loss: float) -> None:
    """One curve line (main process; the others wait); its time counts in wall_s only."""
    acc, c = run.accelerator, run.counters
    begin = time.perf_counter()
    if acc.is_main_process and run.eval_set:
        model = acc.unwrap_model(run.model)
        result = evaluate(model, run.tokenizer, build_tries(run.tokenizer), run.eval_set)
        run.curve.append({"step": c["step"], "samples": c["samples"],
                          "wall_s": round(c["wall_s"], 2), "train_s": round(c["train_s"], 2),
                          "loss": None if math.isnan(loss) else round(loss, 4),
                          "lr": run.scheduler.get_last_lr()[0], **result})
    acc.wait_for_everyone()
    c["wall_s"] += time.perf_counter() - begin
