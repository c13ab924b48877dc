"""The closed-loop evaluation: aggregation, suites, report files, determinism, and the seed
paper's ordering of the three modes."""

from __future__ import annotations

import argparse
import csv
import json
import shlex

import pytest
from PIL import Image

from common.stats import wilson_interval
from runtime.cli import main
from runtime.cli.args import CliError
from runtime.cli.eval import add_closed_loop_parser, build_spec
from runtime.eval.closed_loop import (
    COUNTS,
    EvalSpec,
    aggregate,
    eval_jobs,
    format_table,
    rerun_command,
    run_eval,
)
from runtime.eval.closed_loop_report import write_report
from runtime.eval.closed_loop_suites import PAPER_TABLE2, get_suite
from runtime.eval.diagnostics import CAUSES


def _episode(task: str, mode: str, success: bool, cause: str | None = None) -> dict:
    return {"task": task, "mode": mode, "success": success, "wall_s": 1.0,
            **{k: 2 for k in COUNTS}, "diagnostics": {"failure_cause": cause}}


def test_aggregate_gives_rates_wilson_intervals_and_failure_causes():
    spec = EvalSpec(["t"], ["open-loop", "progress"], episodes=4)
    eps = [_episode("t", "open-loop", s, None if s else "missed failure") for s in (0, 0, 1, 0)]
    eps += [_episode("t", "progress", True) for _ in range(4)]
    result = aggregate(spec, eps)
    assert result["success_rate"] == {"t": {"open-loop": 0.25, "progress": 1.0}}
    assert result["ci95"]["t"]["progress"][1] == 1.0
    assert result["failure_causes_by_mode"]["open-loop"]["missed failure"] == 3
    assert result["reasoner_calls_per_episode"]["t"]["progress"] == 2.0
    assert "| t | 25% [" in format_table(result)


def test_llm_calls_tokens_and_seconds_per_episode_reach_every_table(tmp_path):
    """Issue 19: the LLM's cost per episode (means, and the median of calls) in the summary,
    the printed table, table.md and table.csv; absent for a planner with no LLM."""
    spec = EvalSpec(["t"], ["progress"], episodes=3, planner="llm")
    costs = [(1, 700, 90, 10.0), (1, 700, 110, 12.0), (4, 3000, 400, 50.0)]
    keys = ("llm_calls", "prompt_tokens", "completion_tokens", "llm_s")
    eps = [_episode("t", "progress", True) | dict(zip(keys, c, strict=True)) for c in costs]
    result = aggregate(spec, eps)
    assert result["llm_calls_per_episode"]["t"]["progress"] == 2.0
    assert result["llm_calls_median"]["t"]["progress"] == 1.0
    assert result["prompt_tokens_per_episode"]["t"]["progress"] == 1466.6666666666667
    assert result["llm_s_per_episode"]["t"]["progress"] == 24.0
    assert "t: progress 2.0 calls, 1467+200 tok, 24.0 s" in format_table(result)
    write_report(result, tmp_path, "codeplan eval closed-loop --planner llm")
    assert "| t | 2.00 (1) / 1467 + 200 / 24.0 |" in (tmp_path / "table.md").read_text()
    (row,) = csv.DictReader((tmp_path / "table.csv").open())
    assert (row["llm_calls_per_episode"], row["llm_s_per_episode"]) == ("2.0", "24.0")
    no_llm = aggregate(spec, [_episode("t", "progress", True) | {
        "llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "llm_s": 0}])
    assert "LLM" not in format_table(no_llm)


def test_report_files_from_hand_built_episodes(tmp_path):
    suite = get_suite("paper-table2")
    spec = EvalSpec(list(suite.tasks), ["open-loop", "progress"], episodes=4, suite=suite.name,
                    reference=suite.reference, reference_label="paper", reference_episodes=15)
    eps = [_episode(t, m, i < wins, None if i < wins else cause)
           for t in suite.tasks for m, wins, cause in (("open-loop", 1, "missed failure"),
                                                       ("progress", 3, "stuck"))
           for i in range(4)]
    summary = write_report(aggregate(spec, eps), tmp_path, "codeplan eval closed-loop")
    rows = list(csv.DictReader((tmp_path / "table.csv").open()))
    assert len(rows) == 6 and rows[0]["task"] == "put-blocks-in-matching-bowls"
    low, high = wilson_interval(1, 4)
    assert (float(rows[0]["ci_low"]), float(rows[0]["ci_high"])) == (round(low, 4),
                                                                    round(high, 4))
    assert (rows[0]["missed failure"], rows[1]["stuck"], rows[1]["reference_rate"]) == (
        "3", "1", "0.333")
    assert set(CAUSES) <= set(rows[0])
    table = (tmp_path / "table.md").read_text()
    assert "| put-blocks-in-matching-bowls | 25.0% [" in table
    assert "0.0% / 33.3%" in table  # the paper's Codeplan / +Progress beside ours
    assert "| missed failure | 9 | 0 |" in table and "| stuck | 0 | 3 |" in table
    last = table.rstrip().splitlines()[-1]
    assert last.startswith("Re-run one episode: `codeplan run --task TASK --seed SEED")
    assert "--planner offline" in last and "codeplan replay" in last
    with Image.open(tmp_path / "success.png") as png:
        assert png.format == "PNG" and png.size[0] > 300
    assert json.loads((tmp_path / "summary.json").read_text())["date"] == summary["date"]
    assert (tmp_path / "command.txt").read_text() == "codeplan eval closed-loop\n"


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_closed_loop_parser(parser.add_subparsers())
    return parser.parse_args(["closed-loop", *argv])


def test_the_paper_suite_expands_to_its_tasks_modes_and_dated_results_dir():
    spec = build_spec(_parse("--suite", "paper-table2", "--episodes", "3"))
    assert spec.tasks == list(PAPER_TABLE2) and spec.modes == ["open-loop", "success", "progress"]
    assert spec.out_dir.parts[:2] == ("results", "paper-table2") and spec.seed_start == 1000
    assert spec.reference["put-blocks-in-mismatched-bowls"]["progress"] == 0.60
    assert spec.actor == "cliport" and spec.reasoner == "default"  # the default stack
    other = build_spec(_parse("--suite", "paper-table2", "--actor", "oracle",
                              "--reasoner", "learned"))
    assert other.out_dir.parts[:2] == ("results", "paper-table2+actor-oracle")


def test_the_methods_suite_runs_under_dkprompts_grasp_failures_by_default():
    """DKPROMPT's comparison is under its own failure rates (issue 22); naming that preset is
    the suite's default stack, so the dir carries no tag, while another preset is tagged."""
    spec = build_spec(_parse("--suite", "methods"))
    assert spec.situations == "dkprompt-grasp"
    assert spec.out_dir.parts[:2] == ("results", "methods")
    named = build_spec(_parse("--suite", "methods", "--situations", "dkprompt-grasp"))
    assert named.out_dir.parts[:2] == ("results", "methods")
    other = build_spec(_parse("--suite", "methods", "--situations", "dkprompt"))
    assert other.situations == "dkprompt"
    assert other.out_dir.parts[:2] == ("results", "methods+situations-dkprompt")
    assert build_spec(_parse("--task", "stack-blocks")).situations == "dkprompt"


def test_executor_options_reach_the_spec_and_bad_ones_are_named():
    spec = build_spec(_parse("--task", "stack-blocks", "--executor", "ray", "--workers", "2"))
    assert spec.runner().describe() == "ray, local instance with 2 CPU(s)"
    assert build_spec(_parse("--task", "stack-blocks")).runner().kind == "local"
    with pytest.raises(CliError, match="--ray-address is for --executor ray"):
        build_spec(_parse("--task", "stack-blocks", "--ray-address", "auto"))
    # the packaged LLM's server is this machine's: a cluster's workers could not reach it
    with pytest.raises(CliError, match="--planner openai --base-url"):
        build_spec(_parse("--task", "stack-blocks", "--planner", "llm", "--executor", "ray",
                          "--ray-address", "auto"))
    with pytest.raises(CliError, match="--planner openai --base-url"):  # a method's own LLM
        build_spec(_parse("--suite", "methods", "--executor", "ray", "--ray-address", "auto"))
    offline = build_spec(_parse("--suite", "methods", "--modes", "dkprompt", "--executor", "ray",
                                "--ray-address", "auto"))
    assert offline.ray_address == "auto"


def test_paper_mode_names_and_the_llm_planner_are_accepted():
    spec = build_spec(_parse("--task", "stack-blocks", "--modes", "Codeplan,+progress"))
    assert spec.modes == ["open-loop", "progress"] and spec.planner_options == {}
    llm = build_spec(_parse("--suite", "paper-table2", "--planner", "openai", "--model", "m1"))
    assert llm.planner == "openai" and llm.planner_options == {"model": "m1", "base_url": None}
    assert llm.out_dir.parts[1] == "paper-table2+planner-m1"
    assert rerun_command(llm, "t", 7, "success").endswith(
        "--seed 7 --mode success --actor cliport --reasoner default --situations dkprompt "
        "--planner openai --model m1")
    local = build_spec(_parse("--task", "stack-blocks", "--planner", "llm", "--no-fetch"))
    assert local.planner_options == {"fetch": False}
    assert rerun_command(local, "t", 7, "progress").endswith("--planner llm --no-fetch")
    fetching = build_spec(_parse("--task", "stack-blocks", "--planner", "llm"))
    assert fetching.planner_options == {} and "fetch" not in rerun_command(fetching, "t", 7, "x")


def test_suite_and_task_together_exit_2_with_a_message(capsys):
    assert main(["eval", "closed-loop", "--suite", "paper-table2", "--task", "x"]) == 2
    assert "exclusive" in capsys.readouterr().err


def test_bad_suites_tasks_and_modes_are_named():
    with pytest.raises(CliError, match="exclusive"):
        build_spec(_parse("--suite", "paper-table2", "--task", "stack-blocks"))
    with pytest.raises(CliError, match="unknown mode"):
        build_spec(_parse("--task", "stack-blocks", "--modes", "sometimes"))
    with pytest.raises(ValueError, match="suites: paper-table2"):
        get_suite("table-9")


def _tiny_eval(out):
    spec = EvalSpec(["put-blocks-in-mismatched-bowls"], ["open-loop", "progress"], episodes=2,
                    situations="dkprompt", actor="oracle", reasoner="oracle", out_dir=out,
                    suite="tiny", reference={"put-blocks-in-mismatched-bowls": {"progress": 0.6}},
                    reference_label="paper", reference_episodes=15)
    return spec, run_eval(spec, progress=False)


def test_same_seeds_give_the_same_table_and_every_report_file(tmp_path):
    spec, first = _tiny_eval(tmp_path / "a")
    _, second = _tiny_eval(tmp_path / "b")
    for key in ("success_rate", "ci95", "reasoner_calls_per_episode", "failure_causes"):
        assert first[key] == second[key], key
    assert _records(tmp_path / "a") == _records(tmp_path / "b")
    summary = write_report(first, spec.out_dir, "codeplan eval closed-loop --suite tiny")
    out = spec.out_dir
    assert (out / "success.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((out / "summary.json").read_text())["commit"] == summary["commit"]
    table = (out / "table.md").read_text()
    assert "paper (15 ep.)" in table and "60.0%" in table and "codeplan replay" in table
    rows = list(csv.DictReader((out / "table.csv").open()))
    assert [(r["mode"], r["reference_rate"]) for r in rows] == [("open-loop", ""),
                                                                ("progress", "0.6")]
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 4 and {r["seed"] for r in records} == {1000, 1001}
    assert all("failure_cause" in r["diagnostics"] and r["situations"] == "dkprompt"
               for r in records)
    assert all(r["actor_calls"] >= 1 and r["prompt_tokens"] == 0 for r in records)


def _records(out) -> list[dict]:
    """episodes.jsonl without what differs between two runs of the same episodes."""
    lines = (out / "episodes.jsonl").read_text().splitlines()
    drop = ("wall_s", "run_dir", "replay")
    return [{k: v for k, v in json.loads(line).items() if k not in drop} for line in lines]


def test_the_cli_prints_one_json_object_and_an_episode_reruns_and_replays(tmp_path, capsys):
    argv = ["eval", "closed-loop", "--suite", "paper-table2", "--episodes", "1", "--modes",
            "success", "--actor", "oracle", "--reasoner", "oracle", "--situations", "none",
            "--out", str(tmp_path / "out"), "--json"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    summary = json.loads(out)  # the whole of stdout: one object, no progress bar
    assert set(summary["success_rate"]) == set(PAPER_TABLE2)
    assert {m for by in summary["success_rate"].values() for m in by} == {"success"}
    for key in ("ci95", "reasoner_calls_per_episode", "wall_s_per_episode", "seeds",
                "actor", "reasoner", "planner", "episodes", "situations", "machine", "commit"):
        assert key in summary, key
    record = json.loads((tmp_path / "out" / "episodes.jsonl").read_text().splitlines()[0])
    rerun = [*shlex.split(record["rerun"])[1:], "--runs-dir", str(tmp_path / "re"), "--json"]
    assert main(rerun) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["success"], again["actions"], again["seed"]) == (
        record["success"], record["actions"], record["seed"])
    assert main([*shlex.split(record["replay"])[1:], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["plans"] == record["planner_calls"]


def test_a_small_eval_runs_and_writes_per_episode_records(tmp_path):
    spec = EvalSpec(["put-block-in-bowl"], ["success"], episodes=2, situations="none",
                    out_dir=tmp_path)
    result = run_eval(spec, progress=False)
    assert result["success_rate"]["put-block-in-bowl"]["success"] == 1.0
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 2 and '"seed": 1000' in lines[0]


@pytest.mark.slow
def test_progress_beats_success_beats_open_loop_with_dkprompt_situations(tmp_path):
    spec = EvalSpec(["put-blocks-in-mismatched-bowls"], ["open-loop", "success", "progress"],
                    episodes=30, situations="dkprompt", out_dir=tmp_path)
    rates = run_eval(spec, progress=False)["success_rate"]["put-blocks-in-mismatched-bowls"]
    assert rates["progress"] > rates["success"] > rates["open-loop"], rates


def test_the_table_does_not_depend_on_the_number_of_workers(tmp_path):
    tables = []
    for workers in (1, 2):
        spec = EvalSpec(["put-blocks-in-mismatched-bowls"], ["success"], episodes=2,
                        actor="oracle", reasoner="oracle", workers=workers,
                        out_dir=tmp_path / str(workers))
        tables.append(run_eval(spec, progress=False)["success_rate"])
    assert tables[0] == tables[1]
    assert _records(tmp_path / "1") == _records(tmp_path / "2")


def test_a_paraphrase_set_gives_one_instruction_per_seed_in_its_own_results_dir(tmp_path):
    lines = [{"task": "put-block-in-bowl", "instruction": "put {pick} in the {place} pan"},
             {"task": "stack-blocks", "instruction": "build one tower"},
             {"task": "stack-blocks", "instruction": "make a single pile"}]
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in lines))
    spec = build_spec(_parse("--paraphrases", str(path), "--modes", "progress",
                             "--episodes", "2", "--seed-start", "5000"))
    assert spec.tasks == ["put-block-in-bowl", "stack-blocks"] and spec.episodes == 2
    assert spec.out_dir.parts[:2] == ("results", "paraphrases-mine")
    jobs = eval_jobs(spec)
    assert [(j[0], j[1], j[2], j[4].instruction) for j in jobs] == [
        ("put-block-in-bowl", "progress", 5000, lines[0]["instruction"]),
        ("stack-blocks", "progress", 5001, lines[1]["instruction"])]
    with pytest.raises(CliError, match="exclusive"):
        build_spec(_parse("--paraphrases", str(path), "--suite", "paper-table2"))
    with pytest.raises(CliError, match="cannot read"):
        build_spec(_parse("--paraphrases", str(tmp_path / "missing.jsonl")))


def test_a_paraphrased_episode_runs_its_own_words_and_reruns_with_them(tmp_path):
    spec = EvalSpec(["put-block-in-bowl"], ["progress"], episodes=1, seed_start=1000,
                    situations="none", actor="oracle", reasoner="oracle", out_dir=tmp_path,
                    paraphrases=str(_one_paraphrase(tmp_path)))
    run_eval(spec, progress=False)
    (episode,) = [json.loads(line) for line in (tmp_path / "episodes.jsonl").open()]
    assert episode["instruction"].startswith("move the ") and "{" not in episode["instruction"]
    assert shlex.split(episode["rerun"])[2] == episode["instruction"]
    trace = (tmp_path / "runs").glob("*/trace.jsonl")
    header = json.loads(next(trace).open().readline())
    assert header["instruction"] == episode["instruction"]


def _one_paraphrase(tmp_path):
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"task": "put-block-in-bowl",
                                "instruction": "move the {pick} block into the {place} bowl"}))
    return path


def test_each_episode_record_is_written_when_its_episode_ends(tmp_path, monkeypatch):
    """A stopped evaluation keeps the records of the episodes that finished."""
    import runtime.eval.closed_loop as closed_loop

    def two_then_stop(jobs, workers, progress):
        yield {"task": "t", "mode": "progress", "seed": 1000, "success": True}
        yield {"task": "t", "mode": "progress", "seed": 1001, "success": False}
        raise KeyboardInterrupt

    monkeypatch.setattr(closed_loop, "_map", two_then_stop)
    spec = EvalSpec(["t"], ["progress"], episodes=3, out_dir=tmp_path)
    with pytest.raises(KeyboardInterrupt):
        run_eval(spec, progress=False)
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    assert [json.loads(x)["seed"] for x in lines] == [1000, 1001]


def test_the_reasoning_suite_reports_each_category_beside_volos_figures(tmp_path):
    """Issue 21: per-category rates with Wilson intervals in the summary, the printed table
    and table.md, with VoLo's published figures labelled as another benchmark's."""
    suite = get_suite("reasoning")
    tasks = ["put-block-by-relation", "put-ordinal-block-in-bowl", "swap-blocks-in-bowls"]
    spec = EvalSpec(tasks, ["progress"], episodes=2, suite="reasoning")
    eps = [_episode(t, "progress", ok) for t, ok in (
        ("put-block-by-relation", True), ("put-block-by-relation", True),
        ("put-ordinal-block-in-bowl", True), ("put-ordinal-block-in-bowl", False),
        ("swap-blocks-in-bowls", False), ("swap-blocks-in-bowls", False))]
    result = aggregate(spec, eps)
    reference = result["by_category"]["reference"]["progress"]
    assert (reference["wins"], reference["n"]) == (3, 4) and reference["ci95"][1] < 1.0
    assert result["by_category"]["memory"]["progress"]["rate"] == 0.0
    assert "| **reference** (4 ep.) | 75% [" in format_table(result)
    table = write_report(result, tmp_path, "codeplan eval closed-loop --suite reasoning")
    text = (tmp_path / "table.md").read_text()
    assert "| reference (2) | 75.0% [" in text and "51.0%" in text and "another benchmark" in text
    assert table["by_category"] and suite.category_reference["memory"]["VoLo full"] == 0.369
    paper = aggregate(EvalSpec(["put-blocks-in-matching-bowls"], ["progress"], episodes=1),
                      [_episode("put-blocks-in-matching-bowls", "progress", True)])
    assert paper["by_category"] == {}  # no categories for the paper's tasks


def test_resume_keeps_finished_episodes_and_runs_only_the_rest(tmp_path):
    """An evaluation stopped half way (a torn last line included) is finished by running it
    again with --resume: the recorded episodes are kept as they are, the missing ones run."""
    kw = dict(situations="none", actor="oracle", reasoner="oracle", out_dir=tmp_path)
    run_eval(EvalSpec(["put-block-in-bowl"], ["success"], episodes=1, **kw), progress=False)
    first = (tmp_path / "episodes.jsonl").read_text()
    (tmp_path / "episodes.jsonl").write_text(first + '{"task": "put-blo')  # killed mid-write
    spec = EvalSpec(["put-block-in-bowl"], ["success"], episodes=3, resume=True, **kw)
    result = run_eval(spec, progress=False)
    records = [json.loads(x) for x in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    assert [r["seed"] for r in records] == [1000, 1001, 1002]
    assert json.dumps(records[0]) + "\n" == first  # kept, not re-run
    assert len(list((tmp_path / "runs").iterdir())) == 3
    assert result["success_rate"]["put-block-in-bowl"]["success"] == 1.0
    with pytest.raises(ValueError, match=r"actor='oracle'.*'cliport'"):
        run_eval(EvalSpec(["put-block-in-bowl"], ["success"], episodes=3, resume=True,
                          **(kw | {"actor": "cliport"})), progress=False)


def test_resume_without_out_finds_the_newest_dated_results_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for day in ("2026-11-20", "2026-11-25"):
        (tmp_path / "results/paper-table2" / day).mkdir(parents=True)
        (tmp_path / "results/paper-table2" / day / "episodes.jsonl").write_text("")
    resumed = build_spec(_parse("--suite", "paper-table2", "--resume"))
    assert resumed.resume and resumed.out_dir.as_posix() == "results/paper-table2/2026-11-25"
    assert build_spec(_parse("--suite", "paper-table2")).out_dir.name != "2026-11-25"


def test_the_methods_suite_runs_each_method_with_its_own_mode_and_planner(tmp_path):
    """Issue 22: a table column is a method — DKPROMPT's classical planner is the offline
    (Fast Downward) plan run open-loop, dkprompt the symbolic mode — and each episode's
    rerun line repeats that method's own mode and planner."""
    from runtime.eval.closed_loop_suites import METHODS, resolve_method

    spec = build_spec(_parse("--suite", "methods", "--episodes", "1"))
    assert spec.tasks[-1] == "stack-blocks" and set(spec.modes) >= set(METHODS)
    assert resolve_method("classical", "llm") == ("open-loop", "offline")
    assert resolve_method("progress", "llm") == ("progress", "llm")
    spec = EvalSpec(["put-block-in-bowl"], ["classical", "dkprompt", "progress"], episodes=1,
                    situations="dkprompt-grasp", actor="oracle", reasoner="oracle",
                    out_dir=tmp_path)
    result = run_eval(spec, progress=False)
    assert set(result["success_rate"]["put-block-in-bowl"]) == {"classical", "dkprompt",
                                                                "progress"}
    records = {r["mode"]: r for r in _records(tmp_path)}
    assert records["classical"]["method"] == {"mode": "open-loop", "planner": "offline"}
    assert "method" not in records["progress"]
    rerun = shlex.split(records["dkprompt"]["rerun"])
    assert rerun[rerun.index("--mode") + 1] == "dkprompt"
    # open-loop asks nothing after perception; dkprompt asks each put's pre and effects
    assert records["dkprompt"]["questions"] > records["classical"]["questions"]
    with pytest.raises(CliError, match="methods: classical"):
        build_spec(_parse("--task", "stack-blocks", "--modes", "dkprompt-ish"))
    # the same methods on the reasoning suite's tasks and test seeds
    reasoning = build_spec(_parse("--suite", "methods-reasoning", "--episodes", "1"))
    assert reasoning.modes == spec_methods_columns() and len(reasoning.tasks) == 14
    assert reasoning.seed_start == 3000 and "swap-blocks-in-bowls" in reasoning.tasks


def spec_methods_columns() -> list[str]:
    return list(build_spec(_parse("--suite", "methods", "--episodes", "1")).modes)


def test_the_methods_table_shows_dkprompts_published_means_labelled_as_theirs(tmp_path):
    from runtime.eval.closed_loop_suites import DKPROMPT_TABLE5

    suite = get_suite("methods")
    assert suite.reference["stack-blocks"]["dkprompt"] == DKPROMPT_TABLE5["dkprompt"] == 0.665
    assert "another simulator" in suite.reference_label
    eps = [_episode(t, m, True) for t in suite.tasks for m in suite.modes]
    spec = EvalSpec(list(suite.tasks), list(suite.modes), episodes=1, suite="methods",
                    reference=suite.reference, reference_label=suite.reference_label,
                    reference_episodes=20, out_dir=tmp_path)
    write_report(aggregate(spec, eps), tmp_path, "codeplan eval closed-loop --suite methods")
    table = (tmp_path / "table.md").read_text()
    assert "66.5%" in table and "17.1%" in table and "another simulator" in table


def test_the_volo_natural_suite_is_the_volo_suite_with_failures_from_motion_on_top():
    """Issue 23 item 4: the closed-loop table with natural failures is one suite name away;
    its default preset keeps DKPROMPT's injected failures and adds the motion's own."""
    from ravens_env.situations import parse_situations

    volo, natural = get_suite("volo"), get_suite("volo-natural")
    assert (natural.tasks, natural.modes) == (volo.tasks, volo.modes)
    spec = build_spec(_parse("--suite", "volo-natural", "--episodes", "1"))
    drawn = parse_situations(spec.situations)
    assert drawn.natural and not parse_situations(volo.situations).natural
    assert drawn.drop == parse_situations("dkprompt").drop > 0
    spec = build_spec(_parse("--suite", "volo-natural", "--episodes", "1",
                             "--situations", "natural"))
    assert parse_situations(spec.situations).drop == 0


def test_the_volo_suite_runs_columns_with_the_grounded_tools_and_writes_the_audit(tmp_path):
    """Issue 23: a `+tools` column is its mode with --tool-switch; the episode runs with the
    tools (its trace says so), its rerun line repeats the flag, and the results dir gets the
    failure and monitor audit beside the table."""
    from runtime.eval.closed_loop_report import write_report
    from runtime.eval.closed_loop_suites import resolve_method, uses_tools

    spec = build_spec(_parse("--suite", "volo", "--episodes", "1"))
    assert "stack-block-pyramid" in spec.tasks and "monitor+tools" in spec.modes
    assert resolve_method("progress+tools", "offline") == ("progress", "offline")
    assert uses_tools("monitor+tools") and not uses_tools("monitor")
    spec = EvalSpec(["put-block-in-bowl"], ["progress", "monitor+tools"], episodes=1,
                    seed_start=1, situations="drop=0.5", actor="oracle", reasoner="oracle",
                    out_dir=tmp_path)
    result = run_eval(spec, progress=False)
    records = {r["mode"]: r for r in _records(tmp_path)}
    assert "--tool-switch" in shlex.split(records["monitor+tools"]["rerun"])
    assert "--tool-switch" not in shlex.split(records["progress"]["rerun"])
    run_dir = next(json.loads(line)["run_dir"] for line in
                   (tmp_path / "episodes.jsonl").read_text().splitlines()
                   if json.loads(line)["mode"] == "monitor+tools")
    header = json.loads(open(f"{run_dir}/trace.jsonl").readline())
    assert header["mode"] == "monitor" and header["tool_switch"] is True
    write_report(result, tmp_path, "codeplan eval closed-loop --suite volo")
    audit = json.loads((tmp_path / "audit.json").read_text())
    assert set(audit) == {"progress", "monitor+tools"}
    assert audit["monitor+tools"]["halts"] >= 1 and audit["progress"]["halts"] == 0
    assert (tmp_path / "audit.png").stat().st_size > 0
    assert "| dropped |" in (tmp_path / "audit.md").read_text()
    with pytest.raises(CliError, match="unknown mode"):
        build_spec(_parse("--task", "stack-blocks", "--modes", "sometimes+tools"))


def test_the_conceptagent_suite_gives_each_column_its_planner_and_options():
    """Issue 24: `react` / `mcts` columns are progress mode with that step planner; `+pg` adds
    --preconditions llm; --expansions reaches the mcts columns only; with --planner openai
    the step planners get its server, with --planner llm the shared local server."""
    from runtime.eval.closed_loop import _options, _preconditions, rerun_command
    from runtime.eval.closed_loop_suites import resolve_method, uses_pg

    spec = build_spec(_parse("--suite", "conceptagent", "--planner", "llm", "--expansions",
                             "5", "--episodes", "2"))
    assert list(spec.modes) == ["react", "react+pg", "mcts", "mcts+pg"]
    assert "swap-blocks-in-bowls" in spec.tasks and spec.seed_start == 3000
    assert spec.out_dir.parent.name == "conceptagent+planner-llm+expansions-5"
    assert resolve_method("mcts+pg", "llm") == ("progress", "mcts") and uses_pg("react+pg")
    assert _preconditions(spec, "react+pg") == "llm" and _preconditions(spec, "react") == "none"
    served = EvalSpec(**{**spec.__dict__, "planner_options": {
        **spec.planner_options, "server_url": "http://127.0.0.1:9/v1"}})
    assert _options(served, "mcts") == {"server_url": "http://127.0.0.1:9/v1", "expansions": 5}
    assert _options(served, "react") == {"server_url": "http://127.0.0.1:9/v1"}
    argv = shlex.split(rerun_command(spec, "swap-blocks-in-bowls", 3000, "mcts+pg"))
    assert argv[argv.index("--planner") + 1] == "mcts" and "--preconditions" in argv
    assert argv[argv.index("--expansions") + 1] == "5"
    remote = build_spec(_parse("--suite", "conceptagent", "--planner", "openai", "--model",
                               "qwen2.5-7b", "--base-url", "http://gpu:8000/v1"))
    assert _options(remote, "react") == {"model": "qwen2.5-7b",
                                         "base_url": "http://gpu:8000/v1"}
