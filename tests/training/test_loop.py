"""The training loop every model family runs: resumable to the same weights, one log line per
step, its cadences, its hooks in order, and the record an export carries."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
import torch
from accelerate import Accelerator
from accelerate.utils import set_seed

from common.model_family import FamilyConfig, load_checkpoint, save_checkpoint
from training.loop import Loop, LoopResult, export, run_loop, spec_json
from training.state import checkpoint_to_resume, latest_checkpoint, load_training_state


@dataclass(frozen=True)
class ToyConfig(FamilyConfig):
    """A linear regressor's size."""

    FAMILY: ClassVar[str] = "toy"
    TAGS: ClassVar[dict] = {"kind": "toy"}

    width: int = 3


class Toy(torch.nn.Module):
    def __init__(self, config: ToyConfig) -> None:
        super().__init__()
        self.config = config
        self.linear = torch.nn.Linear(config.width, 1)
        self.dropout = torch.nn.Dropout(0.5)  # draws from torch's RNG: resume must restore it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(self.dropout(x))


@dataclass
class ToySpec:
    out: Path
    steps: int
    resume: bool = False
    checkpoint_every: int = 2
    eval_every: int = 0
    log_every: int = 1
    grad_clip: float = 0.0
    data: tuple[Path, ...] = (Path("/data/a"), Path("/data/b"))


def _toy_loop(spec: ToySpec, calls: list | None = None, **hooks) -> tuple[Loop, dict]:
    """A family as the trainers build one: batches a function of the step, AdamW, warmup."""
    accelerator = Accelerator(cpu=True)
    set_seed(0)
    ckpt = checkpoint_to_resume(spec.out, spec.resume)
    model = Toy(ToyConfig())
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 4))
    model, opt = accelerator.prepare(model, opt)
    accelerator.register_for_checkpointing(sched)
    state = load_training_state(accelerator, ckpt) if ckpt else {"step": 0}

    def compute_losses(step: int) -> dict[str, torch.Tensor]:
        gen = torch.Generator().manual_seed(step)
        x = torch.randn(8, 3, generator=gen)
        y = x.sum(dim=1, keepdim=True)
        mse = torch.nn.functional.mse_loss(model(x), y)
        if calls is not None:
            calls.append(("losses", step))
        return {"mse": mse, "loss": 2 * mse}

    loop = Loop(accelerator, model, opt, sched, spec.out, spec.steps, ToyConfig(),
                compute_losses=compute_losses, checkpoint_every=spec.checkpoint_every,
                log_every=spec.log_every, grad_clip=spec.grad_clip, eval_every=spec.eval_every,
                progress=False, **hooks)
    return loop, state


def _train(spec: ToySpec, **hooks) -> tuple[Loop, LoopResult]:
    loop, state = _toy_loop(spec, **hooks)
    return loop, run_loop(loop, state["step"], state.get("seconds", 0.0))


def _weights(loop: Loop) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in loop.accelerator.unwrap_model(loop.model)
            .state_dict().items()}


class Interrupt(Exception):
    pass


def _stop_at(step: int):
    def on_step(done: int) -> None:
        if done == step:
            raise Interrupt
    return on_step


def test_an_interrupted_run_resumes_to_the_same_weights(tmp_path):
    straight, result = _train(ToySpec(tmp_path / "a", steps=7))
    assert (result.start_step, result.steps) == (0, 7)
    with pytest.raises(Interrupt):  # after step 5; its latest checkpoint is step 4's
        _train(ToySpec(tmp_path / "b", steps=7), on_step=_stop_at(5))
    assert latest_checkpoint(tmp_path / "b").name == "step_0000004"
    with pytest.raises(ValueError, match="pass --resume"):
        _train(ToySpec(tmp_path / "b", steps=7))
    resumed, result = _train(ToySpec(tmp_path / "b", steps=7, resume=True))
    assert (result.start_step, result.steps) == (4, 7)
    a, b = _weights(straight), _weights(resumed)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert result.total_seconds > result.seconds  # the first segment's time is counted
    logs = [[json.loads(x) for x in (tmp_path / run / "train_log.jsonl").read_text().splitlines()]
            for run in ("a", "b")]
    assert [r["step"] for r in logs[1]] == list(range(1, 8))  # step 5 logged once, not twice
    assert [r["loss"] for r in logs[0]] == [r["loss"] for r in logs[1]]
    assert logs[1][-1]["loss"] == result.last["loss"] and result.last["mse"] * 2 == \
        pytest.approx(result.last["loss"], abs=1e-3)


def test_a_fresh_run_without_checkpoints_starts_a_new_log(tmp_path):
    (tmp_path / "train_log.jsonl").write_text('{"step": 0, "note": "an older run"}\n{"step": 9}\n')
    _train(ToySpec(tmp_path, steps=2))
    assert [json.loads(x)["step"] for x in (tmp_path / "train_log.jsonl").read_text()
            .splitlines()] == [1, 2]


def test_checkpoints_logs_and_evaluations_follow_their_cadence(tmp_path):
    evaluated = []
    _train(ToySpec(tmp_path, steps=7, checkpoint_every=3, eval_every=3, log_every=2),
           evaluate=lambda step: evaluated.append(step) or {"acc": step / 10})
    assert evaluated == [3, 6, 7]  # and the last step
    names = sorted(p.name for p in (tmp_path / "checkpoints").iterdir())
    assert names == ["step_0000006", "step_0000007"]  # every 3 and the last; 2 kept
    state = json.loads((tmp_path / "checkpoints" / "step_0000007" / "trainer_state.json")
                       .read_text())
    assert state["step"] == 7 and state["losses"]["acc"] == 0.7 and "mse" in state["losses"]
    assert state["seconds"] > 0
    log = [json.loads(x) for x in (tmp_path / "train_log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [2, 4, 6]


def test_the_log_records_the_lr_each_step_used(tmp_path):
    _train(ToySpec(tmp_path, steps=5))
    lrs = [json.loads(x)["lr"] for x in (tmp_path / "train_log.jsonl").read_text().splitlines()]
    assert lrs == pytest.approx([0.025, 0.05, 0.075, 0.1, 0.1])  # warmup 1/4 .. 4/4


def test_the_hooks_run_in_order_and_the_family_state_is_saved(tmp_path):
    calls: list = []
    counters = {"seen": 0}

    def after_step(step: int, losses: dict, seconds: float) -> dict:
        assert isinstance(losses["loss"], float) and seconds > 0
        counters["seen"] += 8
        calls.append(("after", step))
        return {"seen": counters["seen"]}

    loop, state = _toy_loop(ToySpec(tmp_path, steps=2, checkpoint_every=1, eval_every=1),
                            calls=calls)
    loop.after_step = after_step
    loop.evaluate = lambda step: calls.append(("eval", step))
    loop.state_extra = lambda: calls.append(("state", counters["seen"])) or dict(counters)
    loop.on_step = lambda step: calls.append(("on_step", step))
    run_loop(loop)
    assert calls == [("losses", 0), ("after", 1), ("eval", 1), ("state", 8), ("on_step", 1),
                     ("losses", 1), ("after", 2), ("eval", 2), ("state", 16), ("on_step", 2)]
    log = [json.loads(x) for x in (tmp_path / "train_log.jsonl").read_text().splitlines()]
    assert [r["seen"] for r in log] == [8, 16]
    state = json.loads((tmp_path / "checkpoints" / "step_0000002" / "trainer_state.json")
                       .read_text())
    assert state["seen"] == 16


def test_the_gradient_is_clipped_when_asked(tmp_path, monkeypatch):
    norms = []
    real = Accelerator.clip_grad_norm_
    monkeypatch.setattr(Accelerator, "clip_grad_norm_",
                        lambda self, params, max_norm: norms.append(max_norm) or real(
                            self, params, max_norm))
    unclipped, _ = _train(ToySpec(tmp_path / "a", steps=3))
    assert norms == []
    clipped, _ = _train(ToySpec(tmp_path / "b", steps=3, grad_clip=1e-3))
    assert norms == [1e-3] * 3
    a, b = _weights(unclipped), _weights(clipped)
    assert not torch.equal(a["linear.weight"], b["linear.weight"])


def test_the_export_carries_provenance_the_spec_and_the_final_losses(tmp_path):
    spec = ToySpec(tmp_path, steps=3)
    loop, result = _train(spec)
    record = export(loop, result, spec, save_checkpoint, tmp_path / "model", images=12)
    model, config, training = load_checkpoint(tmp_path / "model", ToyConfig, Toy)
    assert config == ToyConfig()
    assert training == json.loads(json.dumps(record))
    assert {"commit", "machine", "date", "python", "torch"} <= set(training)
    assert training["machine"] and "CPU cores" in training["machine"]
    assert training["spec"] == {**spec_json(spec), "data": ["/data/a", "/data/b"]}
    assert training["spec"]["out"] == str(tmp_path) and training["spec"]["steps"] == 3
    assert training["steps"] == 3 and training["device"] == "cpu" and training["images"] == 12
    assert training["final_loss"] == result.last["loss"] and "final_mse" in training
    assert training["total_seconds"] == round(result.total_seconds, 2)
    assert torch.equal(model.linear.weight, _weights(loop)["linear.weight"])
