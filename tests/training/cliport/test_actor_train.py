"""Actor training: it can memorise a demo, resumes exactly where it stopped, and the
`train cliport` / `eval actor` commands run end to end."""

from __future__ import annotations

import argparse
import json
import shutil

import numpy as np
import pytest
import torch

from datagen.cliport_demo_files import demo_instructions
from datagen.cliport_demos import load_episode
from ravens_env.cliport.actor import CliportActor
from ravens_env.types import Observation
from runtime.cli.eval import add_actor_parser
from runtime.cli.train import add_cliport_parser
from training.cliport.eval import step_holds
from training.cliport.train import TrainCliportSpec, train_cliport
from training.state import latest_checkpoint


def _spec(demos, out, tiny, **kw) -> TrainCliportSpec:
    base = {"batch_size": 2, "augment": False, "progress": False, "language": "hash", "warmup": 0,
            "config_overrides": {k: v for k, v in tiny.items() if k != "language"}}
    return TrainCliportSpec(demos=demos, out=out, **{**base, **kw})


@pytest.mark.slow
def test_one_demonstrated_step_is_memorised(demo_dir, tmp_path, tiny):
    demos = tmp_path / "demos"
    demos.mkdir()
    one = sorted(demo_dir.glob("*.npz"))[0]
    shutil.copy(one, demos / one.name)
    summary = train_cliport(_spec(demos, tmp_path / "run", tiny, steps=25, lr=2e-3,
                                checkpoint_every=100))
    assert summary["final_loss"] < 3.0
    arrays, meta = load_episode(one)
    obs = Observation(color=arrays["color"][0], height=arrays["height"][0].astype(np.float32),
                      front_rgb=np.zeros((1, 1, 3), np.uint8),
                      front_depth=np.zeros((1, 1), np.float32), instruction="", step=0)
    actor = CliportActor(tmp_path / "run")
    actor.act(obs, meta["steps"][0]["instruction"])
    pred, step = actor.last_prediction, meta["steps"][0]
    assert np.abs(np.subtract(pred.pick, step["pick"])).max() <= 2
    assert np.abs(np.subtract(pred.place, step["place"])).max() <= 2
    assert pred.rotation % 9 == step["rotation"] % 9  # a cube looks the same turned by 90°


def test_training_resumes_from_the_latest_checkpoint(demo_dir, tmp_path, tiny):
    out = tmp_path / "run"
    first = train_cliport(_spec(demo_dir, out, tiny, steps=2, checkpoint_every=1, log_every=1))
    assert first["start_step"] == 0 and latest_checkpoint(out).name == "step_0000002"
    with pytest.raises(ValueError, match="pass --resume"):
        train_cliport(_spec(demo_dir, out, tiny, steps=3))
    second = train_cliport(_spec(demo_dir, out, tiny, steps=3, checkpoint_every=1, log_every=1,
                               resume=True))
    assert second["start_step"] == 2 and second["steps"] == 3
    names = sorted(p.name for p in (out / "checkpoints").iterdir())
    assert names == ["step_0000002", "step_0000003"]  # the oldest was pruned (keep 2)
    opt = torch.load(out / "checkpoints" / "step_0000003" / "optimizer.bin", weights_only=True)
    assert {float(s["step"]) for s in opt["state"].values()} == {3.0}  # AdamW state carried on
    state = json.loads((out / "checkpoints" / "step_0000003" / "trainer_state.json").read_text())
    assert state["step"] == 3
    assert (out / "config.json").is_file() and (out / "model.safetensors").is_file()
    logged = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in logged] == [1, 2, 3]
    assert second["total_seconds"] == pytest.approx(
        first["total_seconds"] + second["seconds"], abs=0.5)  # both segments, not the last


def test_a_run_can_start_from_a_trained_actor_and_keeps_its_config(demo_dir, tmp_path, tiny):
    """`--init`: the weights and config of a trained actor are where fine-tuning starts (a
    learning rate of ~0 leaves them as they were); model options with it are refused."""
    from ravens_env.cliport.checkpoint import load_checkpoint

    train_cliport(_spec(demo_dir, tmp_path / "base", tiny, steps=2, lr=5e-3))
    base, base_config = load_checkpoint(tmp_path / "base")
    tuned = _spec(demo_dir, tmp_path / "tuned", tiny, steps=1, lr=1e-12, init=tmp_path / "base")
    tuned.language, tuned.config_overrides = None, {}
    train_cliport(tuned)
    model, config = load_checkpoint(tmp_path / "tuned")
    assert config.to_dict() == base_config.to_dict()
    for (name, a), b in zip(base.state_dict().items(), model.state_dict().values(), strict=True):
        assert torch.allclose(a, b, atol=1e-6), name
    fresh, _ = load_checkpoint(tmp_path / "base")  # (a control: a fresh run would differ)
    train_cliport(_spec(demo_dir, tmp_path / "fresh", tiny, steps=1, lr=1e-12))
    other, _ = load_checkpoint(tmp_path / "fresh")
    assert not all(torch.allclose(a, b) for a, b in zip(
        fresh.state_dict().values(), other.state_dict().values(), strict=True))
    with pytest.raises(ValueError, match="init takes the trained actor's own config"):
        train_cliport(_spec(demo_dir, tmp_path / "bad", tiny, steps=1, init=tmp_path / "base"))
    missing = _spec(demo_dir, tmp_path / "bad2", tiny, steps=1, init=tmp_path / "nothing")
    missing.language, missing.config_overrides = None, {}
    with pytest.raises(ValueError, match=r"no trained actor at .*nothing"):
        train_cliport(missing)


def test_the_exported_config_records_how_the_model_was_made(demo_dir, tmp_path, tiny):
    summary = train_cliport(_spec(demo_dir, tmp_path / "run", tiny, steps=1, lr=7e-4))
    record = json.loads((tmp_path / "run" / "config.json").read_text())["training"]
    assert record["spec"]["lr"] == 7e-4 and record["spec"]["steps"] == 1
    assert record["spec"]["demos"] == str(demo_dir)
    assert record["device"] == "cpu" and record["steps"] == 1
    assert record["total_seconds"] == summary["total_seconds"] > 0
    assert record["final_loss"] == summary["final_loss"]
    assert {"date", "commit", "machine", "torch"} <= set(record)


def test_a_step_holds_only_after_it_is_done(env):
    from ravens_env.agents.oracle import OracleActor

    obs = env.reset("put-block-in-bowl", 3)
    step = env.task.instruction
    assert not step_holds(env.scene(visibility=False), step)
    env.execute(OracleActor(env).act(obs, step))
    assert step_holds(env.scene(visibility=False), step)
    assert not step_holds(env.scene(visibility=False), "put the gold block in the tin bowl")


@pytest.mark.parametrize("acted", ["right", "other block", "other bowl", "empty table"])
def test_each_step_is_classified_by_what_moved_and_where_it_went(env, acted):
    from ravens_env.agents.oracle import OracleActor
    from ravens_env.types import PickPlace
    from training.cliport.eval import step_outcome

    obs = env.reset("put-block-in-bowl", 3)
    step, (block, bowl) = env.task.instruction, env.task.target
    before = env.scene(visibility=False)
    other_block = next(o.name for o in before.of_type("block") if o.name != block)
    other_bowl = next(o.name for o in before.of_type("bowl") if o.name != bowl)
    asked = {"right": step, "other block": f"put the {other_block} in the {bowl}",
             "other bowl": f"put the {block} in the {other_bowl}"}.get(acted)
    if asked is None:  # suction on the table's far corner, away from every object
        corner = min(((x, y) for x in (0.27, 0.73) for y in (-0.47, 0.47)),
                     key=lambda c: -min(np.hypot(c[0] - o.position[0], c[1] - o.position[1])
                                        for o in before.objects))
        env.execute(PickPlace(pick=(*corner, 0.0), place=(0.5, 0.0, 0.0)))
    else:
        env.execute(OracleActor(env).act(obs, asked))
    expected = {"right": "held", "other block": "wrong object", "other bowl": "wrong place",
                "empty table": "nothing moved"}[acted]
    assert step_outcome(before, env.scene(visibility=False), step) == expected


def test_training_reads_precomputed_embeddings_instead_of_the_encoder(demo_dir, tmp_path, tiny):
    from ravens_env.cliport.language import HashEncoder, save_embeddings

    vectors = tmp_path / "lang.npz"
    save_embeddings(HashEncoder(), demo_instructions(demo_dir), vectors)
    out = tmp_path / "run"
    summary = train_cliport(_spec(demo_dir, out, tiny, steps=1, embeddings=vectors))
    assert summary["steps"] == 1 and (out / "model.safetensors").is_file()
    missing = tmp_path / "partial.npz"
    save_embeddings(HashEncoder(), ["put the gold block in the tin bowl"], missing)
    with pytest.raises(KeyError, match="no precomputed hash embedding"):
        train_cliport(_spec(demo_dir, tmp_path / "run2", tiny, steps=1, embeddings=missing))


def test_an_rgb_language_run_loads_and_acts(demo_dir, tmp_path, tiny):
    out = tmp_path / "run"
    train_cliport(_spec(demo_dir, out, tiny, steps=1, language="hash+rgb"))
    actor = CliportActor(out)
    assert actor.config.language == "hash+rgb" and actor.config.lang_dim == 384 + 6
    arrays, meta = load_episode(sorted(demo_dir.glob("*.npz"))[0])
    obs = Observation(color=arrays["color"][0], height=arrays["height"][0].astype(np.float32),
                      front_rgb=np.zeros((1, 1, 3), np.uint8),
                      front_depth=np.zeros((1, 1), np.float32), instruction="", step=0)
    action = actor.act(obs, meta["steps"][0]["instruction"])
    pick, place = actor.last_prediction.pick, actor.last_prediction.place
    assert np.hypot(pick[0] - place[0], pick[1] - place[1]) >= actor.config.min_place_distance_px
    assert np.isfinite([action.pick, action.place]).all()


def test_the_lr_warms_up_then_decays(demo_dir, tmp_path, tiny):
    out = tmp_path / "run"
    train_cliport(_spec(demo_dir, out, tiny, steps=8, warmup=4, lr=1e-3, log_every=1,
                      checkpoint_every=100))
    lrs = [json.loads(line)["lr"] for line in (out / "train_log.jsonl").read_text().splitlines()]
    # the lr each step used: warmup 1/4 .. 4/4 of the peak, then a cosine towards 0.1 x peak
    assert lrs[:5] == pytest.approx([2.5e-4, 5e-4, 7.5e-4, 1e-3, 1e-3])
    assert lrs[4] > lrs[5] > lrs[6] > lrs[7] > 1e-4


@pytest.mark.parametrize("frozen", ["pick", "place"])
def test_a_frozen_stream_is_kept_exactly_while_the_other_learns(demo_dir, tmp_path, tiny, frozen):
    """`--freeze`: fine-tuning at a real learning rate leaves the frozen stream's weights as
    the trained actor had them and moves the other's; freezing needs init and a stream left."""
    from ravens_env.cliport.checkpoint import load_checkpoint

    train_cliport(_spec(demo_dir, tmp_path / "base", tiny, steps=2, lr=5e-3))
    base, _ = load_checkpoint(tmp_path / "base")
    tuned = _spec(demo_dir, tmp_path / "tuned", tiny, steps=3, lr=5e-3, init=tmp_path / "base",
                  freeze=(frozen,))
    tuned.language, tuned.config_overrides = None, {}
    train_cliport(tuned)
    model, _ = load_checkpoint(tmp_path / "tuned")
    other = "place" if frozen == "pick" else "pick"
    same = {s: all(torch.equal(a, b) for a, b in zip(
        getattr(base, s).state_dict().values(), getattr(model, s).state_dict().values(),
        strict=True)) for s in (frozen, other)}
    assert same == {frozen: True, other: False}
    for freeze, init, message in [(("grip",), tmp_path / "base", "unknown stream"),
                                  (("pick",), None, "needs init"),
                                  (("pick", "place"), tmp_path / "base", "nothing to train")]:
        bad = _spec(demo_dir, tmp_path / "bad", tiny, steps=1, init=init, freeze=freeze)
        if init is not None:
            bad.language, bad.config_overrides = None, {}
        with pytest.raises(ValueError, match=message):
            train_cliport(bad)


def test_the_freeze_option_reaches_the_spec(demo_dir, tmp_path, monkeypatch):
    import training.cliport.train as train_module

    seen = []
    monkeypatch.setattr(train_module, "train_cliport", lambda spec: seen.append(spec) or {})
    argv = ["train", "cliport", "--demos", str(demo_dir), "--out", str(tmp_path / "r"),
            "--steps", "1", "--json"]
    for extra, expected in [([], ()), (["--init", str(tmp_path), "--freeze", "pick"], ("pick",))]:
        args = _parser().parse_args(argv + extra)
        assert args.handler(args) == 0
        assert seen.pop().freeze == expected
    with pytest.raises(SystemExit):
        _parser().parse_args([*argv, "--freeze", "grip"])


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codeplan")
    groups = parser.add_subparsers()
    add_cliport_parser(groups.add_parser("train").add_subparsers())
    add_actor_parser(groups.add_parser("eval").add_subparsers())
    return parser


def test_train_then_eval_from_the_command_line(demo_dir, tmp_path, capsys):
    out = str(tmp_path / "run")
    args = _parser().parse_args(["train", "cliport", "--demos", str(demo_dir), "--out", out,
                                 "--steps", "1", "--batch-size", "2", "--language", "hash",
                                 "--json"])
    assert args.handler(args) == 0
    trained = json.loads(capsys.readouterr().out)
    assert trained["steps"] == 1 and trained["preset"] == "cpu"
    args = _parser().parse_args(["eval", "actor", "--checkpoint", out, "--task",
                                 "put-block-in-bowl", "--episodes", "1", "--json"])
    assert args.handler(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"success_rate", "ci95", "episodes", "steps", "step_success_rate", "step_ci95",
            "act_ms_p50"} <= set(result)
    assert result["act_ms_p50"] > 0 and len(result["runs"][0]["act_ms"]) == result["steps"]
    assert sum(result["step_outcomes"].values()) == result["steps"]
    assert result["step_outcomes"]["held"] == round(result["step_success_rate"] * result["steps"])
    assert result["runs"][0]["outcomes"][0] in result["step_outcomes"]
    assert (result["first_step_success_rate"] == 1.0) == (result["runs"][0]["outcomes"][0]
                                                          == "held")
    from training.cliport.eval import format_eval

    lines = format_eval(result).splitlines()
    assert lines[0].startswith("put-block-in-bowl: ") and "episodes succeeded" in lines[0]
    assert lines[2].startswith("first steps held: ") and "wrong object" in lines[2]
    lo, hi = result["step_ci95"]
    assert 0.0 <= lo <= result["step_success_rate"] <= hi <= 1.0
    assert result["episodes"] == 1 and result["steps"] >= 1
    assert 0.0 <= result["ci95"][0] <= result["success_rate"] <= result["ci95"][1] <= 1.0


def test_missing_demos_or_checkpoint_are_one_line_errors(tmp_path):
    args = _parser().parse_args(["train", "cliport", "--demos", str(tmp_path), "--out",
                                 str(tmp_path / "run"), "--steps", "1", "--language", "hash"])
    with pytest.raises(ValueError, match="no demo files"):
        args.handler(args)
    args = _parser().parse_args(["eval", "actor", "--checkpoint", str(tmp_path), "--task",
                                 "put-block-in-bowl"])
    with pytest.raises(ValueError, match="no CLIPort checkpoint at"):
        args.handler(args)


def test_the_shift_option_reaches_the_run_and_a_negative_one_is_refused(demo_dir, tmp_path, tiny,
                                                                         monkeypatch):
    import training.cliport.data as actor_data

    shifts = []
    real = actor_data.random_rotation
    monkeypatch.setattr(actor_data, "random_rotation",
                        lambda rng, labels, shape, shift_sigma=0.0:
                        shifts.append(shift_sigma) or real(rng, labels, shape, shift_sigma))
    train_cliport(_spec(demo_dir, tmp_path / "run", tiny, steps=1, augment=True, shift_sigma=9.0))
    assert shifts and set(shifts) == {9.0}
    with pytest.raises(ValueError, match="shift_sigma must be >= 0"):
        train_cliport(_spec(demo_dir, tmp_path / "bad", tiny, steps=1, shift_sigma=-1.0))
    args = _parser().parse_args(["train", "cliport", "--demos", str(demo_dir), "--out",
                                 str(tmp_path / "cli"), "--steps", "1", "--shift", "27"])
    assert args.shift == 27.0


def test_the_color_match_option_reaches_the_checkpoint_and_needs_an_rgb_language(demo_dir,
                                                                                   tmp_path):
    out = tmp_path / "run"
    args = _parser().parse_args(["train", "cliport", "--demos", str(demo_dir), "--out", str(out),
                                 "--steps", "1", "--batch-size", "2", "--language", "hash+rgb",
                                 "--color-match", "4", "--color-prior", "--json"])
    assert args.handler(args) == 0
    actor = CliportActor(out)
    assert actor.config.color_match_dim == 4 and actor.config.color_prior
    assert actor.model.pick.net.semantic.match.metric.weight.shape == (4, 3)
    args = _parser().parse_args(["train", "cliport", "--demos", str(demo_dir), "--out",
                                 str(tmp_path / "bad"), "--steps", "1", "--language", "hash",
                                 "--color-match", "4"])
    with pytest.raises(ValueError, match="needs a '\\+rgb' language"):
        args.handler(args)
    args = _parser().parse_args(["train", "cliport", "--demos", str(demo_dir), "--out",
                                 str(tmp_path / "bad2"), "--steps", "1", "--language", "hash+rgb",
                                 "--color-match-loss", "0.5"])
    with pytest.raises(ValueError, match="needs colour-match maps"):
        args.handler(args)
    args = _parser().parse_args(["train", "cliport", "--demos", str(demo_dir), "--out",
                                 str(tmp_path / "bad4"), "--steps", "1", "--language", "hash+rgb",
                                 "--color-prior"])
    with pytest.raises(ValueError, match="color_prior needs colour-match maps"):
        args.handler(args)
    with pytest.raises(ValueError, match="color_match_weight must be >= 0"):
        train_cliport(TrainCliportSpec(demos=demo_dir, out=tmp_path / "bad3", steps=1,
                                   color_match_weight=-1.0))


def test_the_grounding_loss_is_logged_and_weighted_into_the_total(demo_dir, tmp_path, tiny):
    out = tmp_path / "run"
    summary = train_cliport(_spec(demo_dir, out, tiny, steps=2, log_every=1, language="hash+rgb",
                                color_match_weight=0.5,
                                config_overrides={**{k: v for k, v in tiny.items()
                                                     if k != "language"},
                                                  "color_match_dim": 4}))
    assert summary["final_loss"] == pytest.approx(
        summary["final_pick"] + summary["final_place"] + 0.5 * summary["final_color"], abs=1e-3)
    assert summary["final_color"] > 0


def test_the_colour_metrics_learn_faster_than_the_network(tiny):
    from ravens_env.cliport.config import preset
    from ravens_env.cliport.policy import CliportModel
    from training.cliport.train import COLOR_MATCH_LR_SCALE, param_groups

    sizes = {k: v for k, v in tiny.items() if k != "language"}
    spec = TrainCliportSpec(demos="unused", out="unused", steps=1, lr=1e-3)
    model = CliportModel(preset("cpu", language="hash+rgb", lang_dim=390, color_match_dim=4,
                                **sizes))
    rest, match = param_groups(model, spec)
    assert match["lr"] == pytest.approx(1e-3 * COLOR_MATCH_LR_SCALE)
    assert match["weight_decay"] == 0.0 and "lr" not in rest
    assert len(match["params"]) == 3 * 3  # metric, gain, shift in pick, place key, place query
    assert sum(p.numel() for g in (rest, match) for p in g["params"]) == sum(
        p.numel() for p in model.parameters())
    plain = CliportModel(preset("cpu", language="hash", **sizes))
    assert len(param_groups(plain, spec)) == 1
    with_prior = CliportModel(preset("cpu", language="hash+rgb", lang_dim=390,
                                     color_match_dim=4, color_prior=True, **sizes))
    assert len(param_groups(with_prior, spec)[1]["params"]) == 3 * 3 + 2  # + pick, place gains
