"""One validation for every way of configuring `prm-label`: the same mistake gives the same
one sentence and exit 2 from command-line overrides, a group option, or a whole job file a
team keeps in version control (`--config-dir DIR --config-name NAME`), and a failed start
leaves nothing behind."""

from __future__ import annotations

import json

import pytest

from tests.conftest import app_error_line, run_app

HEAD = "defaults:\n  - prm-label\n  - override engine: simulated\n  - override ray: inprocess\n"


def job_file(tmp_path, body: str, head: str = HEAD) -> list[str]:
    """A job file `nightly.yaml` in `tmp_path/team-conf`; the flags that run it."""
    conf = tmp_path / "team-conf"
    conf.mkdir(exist_ok=True)
    (conf / "nightly.yaml").write_text(head + "  - _self_\n" + body)
    return ["--config-dir", str(conf), "--config-name", "nightly"]


MISTAKES = [  # (override, the same in a job file, what the sentence says)
    ("sampler.nn=3", "sampler: {nn: 3}", "sampler.nn: no such key in SamplerConfig"),
    ("sampler.n=x", "sampler: {n: x}", "sampler.n: Value 'x'"),
    ("sampler.n=0", "sampler: {n: 0}", "sampler.n=0 must be > 0"),
    ("labels.policy=mc", "labels: {policy: mc}", "labels.policy=mc needs the mc source"),
    ("labels.mc.k=5", "labels: {mc: {k: 5}}", "labels.mc.k: labels.mc is off"),
]


@pytest.mark.app
@pytest.mark.parametrize(("override", "yaml", "says"), MISTAKES)
def test_a_mistake_reads_the_same_from_the_command_line_and_a_job_file(
        tmp_path, override, yaml, says):
    out = tmp_path / "runs"
    given = app_error_line("prm-label", ["engine=simulated", f"output.dir={out}", override],
                           tmp_path)
    filed = app_error_line("prm-label", job_file(tmp_path, f"output: {{dir: {out}}}\n{yaml}\n"),
                           tmp_path)
    assert says in given, given
    assert filed == given
    assert not out.exists()


@pytest.mark.app
def test_a_wrong_group_option_in_a_job_file_is_one_sentence(tmp_path):
    head = HEAD + "  - override sampler: greedyy\n"
    line = app_error_line("prm-label", job_file(tmp_path, "", head), tmp_path)
    assert "sampler=greedyy: no such option in group 'sampler'" in line


@pytest.mark.app
def test_a_job_file_whose_input_is_missing_leaves_no_hydra_folder(tmp_path):
    out = tmp_path / "runs" / "nightly"
    flags = job_file(tmp_path, f"dataset: {{path: {tmp_path}/none.jsonl}}\n"
                               f"output: {{dir: {out}}}\n",
                     HEAD + "  - override dataset: generic\n")
    line = app_error_line("prm-label", flags, tmp_path)
    assert "does not exist" in line
    assert not (tmp_path / "runs").exists()  # neither the output dir, its lock nor hydra/


@pytest.mark.app
def test_a_job_file_runs_with_overrides_on_top(tmp_path):
    data = tmp_path / "dump.jsonl"
    data.write_text('{"q": "What is 2 + 3?", "a": "5"}\n')
    out = tmp_path / "nightly"
    flags = job_file(tmp_path, f"dataset:\n  path: {data}\n  name: team_dump\n"
                               "  fields: {question: q, answer: a}\n"
                               f"output: {{dir: {out}, report: false}}\n",
                     HEAD + "  - override dataset: generic\n")
    proc = run_app("prm-label", [*flags, "sampler.n=2"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["rows"] == 2
    assert manifest["config"]["dataset"]["name"] == "team_dump"
