"""One accelerate training loop for every model family (the CLIPort actor, the detector, the
OFA-style VQA model), and the record their exported checkpoints carry.

Why one loop: the three trainers used to hold three copies of the same steps (forward,
backward, clip, optimizer and scheduler step, progress bar, log, evaluation, resumable
checkpoint), and copies drift: one logged the lr of the next step, one kept no log, only one
stamped its checkpoint with the commit and machine. What differs between the families is
supplied as callables (`Loop`):

- `compute_losses(step)` draws the family's batch (each as it always did: the actor from its
  DataLoader, the detector and the VQA model as a function of (seed, step), so a resumed run
  sees the batches an uninterrupted one would) and returns its losses, "loss" the total;
- `evaluate(step)` every `eval_every` steps and at the end (its figures join the last losses);
- `after_step(step, losses, seconds)` for the family's own counters (its dict joins the log);
- `state_extra()` for what the family needs back on resume (in trainer_state.json);
- `on_step(step)` last of all, after the checkpoint (tests interrupt a run there).

Everything else is the loop's: the lr each step uses, `train_log.jsonl` every `log_every`
steps (truncated to the resumed step, so a resumed run has one line per step), a resumable
state (`training.state`) every `checkpoint_every` steps and at the end, and the wall time
summed over resumed segments. At the end `export` writes the model with the family's save
function (`common.model_family.save_checkpoint` underneath) and `training_record` in
config.json's "training": provenance (commit, machine, date, versions), the spec, steps, wall
time, device and final losses.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from accelerate import Accelerator
from tqdm import tqdm

from common.model_family import FamilyConfig
from common.provenance import provenance
from training.state import save_training_state

LOG_FILE = "train_log.jsonl"


@dataclass
class Loop:
    """One run's loop: the prepared objects, the family's callables and the cadences."""

    accelerator: Accelerator
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    out: Path
    steps: int
    config: FamilyConfig  # saved beside every resumable state
    compute_losses: Callable[[int], dict[str, torch.Tensor]]
    checkpoint_every: int
    keep_checkpoints: int = 2
    log_every: int = 10
    grad_clip: float = 0.0  # > 0: clip the gradient norm to this before the optimizer step
    evaluate: Callable[[int], dict | None] | None = None
    eval_every: int = 0  # 0: never (the last step is evaluated when evaluate is given)
    after_step: Callable[[int, dict[str, float], float], dict | None] | None = None
    state_extra: Callable[[], dict] | None = None
    on_step: Callable[[int], None] | None = None
    desc: str = "train"  # the progress bar's label
    show: tuple[str, ...] = ("loss",)  # losses shown on the progress bar
    progress: bool = True


@dataclass
class LoopResult:
    """What a loop segment did: the steps it started and ended at, its wall time and the whole
    run's, and the last step's losses (with the last evaluation's figures)."""

    start_step: int
    steps: int
    seconds: float
    total_seconds: float
    last: dict


def run_loop(loop: Loop, start: int = 0, seconds_before: float = 0.0) -> LoopResult:
    """Optimise from step `start` to `loop.steps` (a resumed run passes its saved step and
    seconds; every process calls it)."""
    acc = loop.accelerator
    if acc.is_main_process:
        Path(loop.out).mkdir(parents=True, exist_ok=True)
        _trim_log(Path(loop.out) / LOG_FILE, start)
    bar = tqdm(total=loop.steps, initial=min(start, loop.steps), desc=loop.desc, unit="step",
               disable=not (loop.progress and acc.is_local_main_process))
    step, last, begin = start, {}, time.perf_counter()
    while step < loop.steps:
        lr = loop.scheduler.get_last_lr()[0]  # the rate this step uses
        losses, seconds = _optimizer_step(loop, step)
        step += 1
        last = {k: round(v, 4) for k, v in losses.items()}
        extra = loop.after_step(step, losses, seconds) if loop.after_step else None
        bar.update(1)
        bar.set_postfix({k: last[k] for k in loop.show if k in last})
        elapsed = seconds_before + time.perf_counter() - begin
        if step % loop.log_every == 0 and acc.is_main_process:
            _log(Path(loop.out) / LOG_FILE, {"step": step, **last, "lr": lr,
                                             "seconds": round(elapsed, 2), **(extra or {})})
        if loop.evaluate is not None and loop.eval_every and (
                step % loop.eval_every == 0 or step == loop.steps):
            last.update(loop.evaluate(step) or {})
        if step % loop.checkpoint_every == 0 or step == loop.steps:
            _save_state(loop, step, last, seconds_before + time.perf_counter() - begin)
        if loop.on_step is not None:
            loop.on_step(step)
    bar.close()
    seconds = time.perf_counter() - begin
    return LoopResult(start, max(loop.steps, start), seconds, seconds_before + seconds, last)


def _optimizer_step(loop: Loop, step: int) -> tuple[dict[str, float], float]:
    """Step `step` (0-based): the family's losses, backward, optional gradient clip, optimizer
    and scheduler step, zero_grad; returns the losses as floats and the step's seconds."""
    begin = time.perf_counter()
    loop.model.train()  # an evaluation may have switched it to eval mode
    losses = loop.compute_losses(step)
    loop.accelerator.backward(losses["loss"])
    if loop.grad_clip > 0:
        loop.accelerator.clip_grad_norm_(loop.model.parameters(), loop.grad_clip)
    loop.optimizer.step()
    loop.scheduler.step()
    loop.optimizer.zero_grad(set_to_none=True)
    values = {k: float(v.detach()) for k, v in losses.items()}
    return values, time.perf_counter() - begin


def _save_state(loop: Loop, step: int, last: dict, seconds: float) -> None:
    """The resumable state at `step`, with the family's extra fields. The seconds are kept
    unrounded: a resumed run adds them to its own, and rounded to 0.01 s a short first segment
    (a toy run's four steps) counted as nothing."""
    extra = {"losses": last, "seconds": seconds,
             **(loop.state_extra() if loop.state_extra else {})}
    save_training_state(loop.accelerator, loop.out, step, loop.config, extra,
                        keep=loop.keep_checkpoints)


def _log(path: Path, record: dict) -> None:
    with path.open("a") as f:
        f.write(json.dumps(record) + "\n")


def _trim_log(path: Path, step: int) -> None:
    """A fresh run starts a new log; a resumed one drops the lines past its step (they are
    logged again), so the log has one line per step whether or not the run was interrupted."""
    if step == 0 or not path.exists():
        path.unlink(missing_ok=True)
        return
    lines = path.read_text().splitlines()
    keep = [line for line in lines if line.strip() and json.loads(line).get("step", 0) <= step]
    if len(keep) != len(lines):
        path.write_text("".join(line + "\n" for line in keep))


def export(loop: Loop, result: LoopResult, spec: object, save: Callable[..., Path],
           directory: str | Path, **record: object) -> dict:
    """Write the trained model with the family's `save(directory, model, config, training=)`
    (main process; the others wait) and return the training record it carries; `record`
    adds family fields to it (e.g. how many demos or images the run saw)."""
    acc = loop.accelerator
    training = training_record(acc, spec, result, **record)
    if acc.is_main_process:
        save(directory, acc.unwrap_model(loop.model), loop.config, training=training)
    acc.wait_for_everyone()
    return training


def training_record(accelerator: Accelerator, spec: object, result: LoopResult,
                    **extra: object) -> dict:
    """What an exported config.json says of its making ("training"): where and when (the
    code's commit, the machine, the date, library versions), every option of the run (`spec`),
    its steps, the wall time over all resumed segments, the device and the final losses. Why:
    a checkpoint shipped in `checkpoints/` must carry the command that reproduces it."""
    finals = {f"final_{k}": v for k, v in result.last.items()}
    return {**provenance(), "steps": result.steps,
            "total_seconds": round(result.total_seconds, 2), "device": device_name(accelerator),
            "processes": accelerator.num_processes, **extra, **finals, "spec": spec_json(spec)}


def spec_json(spec: object) -> dict:
    """A run's spec dataclass as JSON values (paths as strings, lists of paths as lists)."""
    def plain(value: object) -> object:
        if isinstance(value, Path):
            return str(value)
        if isinstance(value, list | tuple) and any(isinstance(v, Path) for v in value):
            return [plain(v) for v in value]
        return value

    return {f.name: plain(getattr(spec, f.name)) for f in dataclasses.fields(spec)}


def make_accelerator() -> Accelerator:
    """The run's Accelerator. Why not a bare `Accelerator()`: started as one of several
    processes (`torchrun --nproc_per_node N`, `accelerate launch --multi_gpu`) on a machine
    with no GPU, accelerate sets up no process group unless told it runs on the CPU, and each
    process would train alone into the same directory; told so, it joins the processes over
    gloo (data parallel, gradients averaged) as it joins GPUs over NCCL."""
    import os

    several = int(os.environ.get("WORLD_SIZE", "1")) > 1
    on_cpu = several and not torch.cuda.is_available()
    if on_cpu and "OMP_NUM_THREADS" not in os.environ:
        # each process its share of this node's cores: with torch's default (one thread per
        # core in every process) their OpenMP threads spin-wait for each other
        local = int(os.environ.get("LOCAL_WORLD_SIZE", os.environ["WORLD_SIZE"]))
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // local))
    return Accelerator(cpu=on_cpu)


def device_name(accelerator: Accelerator) -> str:
    """'cpu', or the GPU's name (e.g. 'cuda: NVIDIA H100 80GB HBM3')."""
    device = accelerator.device
    if device.type == "cuda":
        return f"cuda: {torch.cuda.get_device_name(device)}"
    return str(device)
