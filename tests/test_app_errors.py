"""Every app answers a user's mistake the same way: exit 2, one sentence, the valid choices
listed, checked before Ray or a model starts, and no directory left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import app_error_line


@pytest.mark.app
@pytest.mark.parametrize(
    ("app", "override", "says"),
    [
        ("prm-label", "labels=[answer,clac]", "choose from answer, calc, judge, mc, tests"),
        ("prm-label", "dataset=gsm8k8", "gsm8k, humaneval, math, mbpp, prm800k, processbench"),
        ("prm-search", "dataset=gsm8k8",
         "choose from builtin_code, builtin_math, deltabench, generic"),
        ("prm-search", "strategies=[majority]", "did you mean search.strategies?"),
        ("prm-label", "datset=gsm8k", "did you mean dataset?"),
        ("prm-train", "optim.schedule=cosin", "expected one of [cosine, linear, constant]"),
        ("prm-eval", "mode=label", "expected one of [labels, direct, checkpoint]"),
    ],
)
def test_a_mistyped_name_lists_the_valid_ones(tmp_path, app, override, says):
    line = app_error_line(app, [override], tmp_path)
    assert says in line, line
    assert not any(tmp_path.iterdir())  # composition failed: nothing was created


@pytest.mark.app
def test_missing_dataset_path_fails_before_ray_and_leaves_no_directory(tmp_path):
    out = tmp_path / "runs" / "x"
    line = app_error_line("prm-label", ["dataset=gsm8k", f"dataset.path={tmp_path}/none.jsonl",
                                        f"output.dir={out}", "ray=local"], tmp_path)
    assert "dataset.path=" in line and "does not exist" in line
    assert not (tmp_path / "runs").exists()  # neither the output dir, its lock nor hydra/


@pytest.mark.app
def test_missing_dataset_path_in_search_leaves_no_directory(tmp_path):
    out = tmp_path / "s"
    line = app_error_line("prm-search", ["dataset=gsm8k", f"dataset.path={tmp_path}/none.jsonl",
                                         f"output.dir={out}", "prm.backend=none",
                                         "search.strategies=[majority]"], tmp_path)
    assert "does not exist" in line
    assert not out.exists()


@pytest.mark.app
def test_an_existing_output_dir_keeps_its_files_after_a_failed_start(tmp_path):
    out = tmp_path / "kept"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    app_error_line("prm-label", ["dataset=gsm8k", f"dataset.path={tmp_path}/none.jsonl",
                                 f"output.dir={out}"], tmp_path)
    assert (out / "notes.txt").read_text() == "mine"


@pytest.fixture
def shards_without_human_labels(tmp_path) -> Path:
    from tests.prm_fixtures import synthetic_rows, write_shards

    return write_shards(synthetic_rows(6, 2), tmp_path / "shards")


@pytest.mark.app
def test_train_on_labels_the_shards_lack_is_one_sentence(tmp_path, shards_without_human_labels):
    out = tmp_path / "prm"
    line = app_error_line("prm-train", [f"data.shards=[{shards_without_human_labels}]",
                                        "data.label_source=human_labels", f"output.dir={out}"],
                          tmp_path)
    assert "data.label_source=human_labels" in line
    assert "labels" in line.split("carry", 1)[1] and "mc_scores" in line
    assert not out.exists()


@pytest.mark.app
def test_warmup_above_max_steps_fails_at_start(tmp_path, shards_without_human_labels):
    out = tmp_path / "prm"
    line = app_error_line("prm-train", [f"data.shards=[{shards_without_human_labels}]",
                                        "optim.warmup_steps=10", "train.max_steps=4",
                                        f"output.dir={out}"], tmp_path)
    assert "optim.warmup_steps=10 is above train.max_steps=4" in line
    assert not out.exists()


def test_labels_check_accepts_shards_that_carry_the_source(shards_without_human_labels):
    """The check passes what the shards carry (the combined labels, MC scores, and MC labels
    kept only in `verdicts`) and refuses what they lack, naming the rest:
    a check that let everything through, or nothing, fails here."""
    from pipelines.cli import UserError
    from pipelines.train.config import PRMDataConfig
    from pipelines.train.data import check_labels_present

    def check(source: str) -> None:
        check_labels_present(PRMDataConfig(shards=[str(shards_without_human_labels)],
                                           label_source=source))

    for source in ("labels", "mc_scores", "mc_labels"):
        assert check(source) is None
    for source in ("judge_labels", "calc_labels"):
        with pytest.raises(UserError) as refused:
            check(source)
        assert f"data.label_source={source}" in str(refused.value)
        assert "labels" in str(refused.value).split("carry", 1)[1]


def test_a_subset_read_from_a_file_is_named_after_it():
    from pipelines.label.app import named_by_file

    assert named_by_file(["dataset=processbench", "dataset.path=../d/math.json"]) == [
        "dataset.name=processbench_math"]
    # Not a format of subsets: a dated dump keeps its dataset's name (refresh by content).
    assert named_by_file(["dataset=generic", "dataset.path=dump-2026-12-02.jsonl"]) == []
    assert named_by_file(["dataset=gsm8k", "dataset.path=/d/gsm8k-test.jsonl"]) == []
    assert named_by_file(["dataset=processbench"]) == []  # the group's own file and name
    assert named_by_file(["dataset=gsm8k", "dataset.path=x.jsonl", "dataset.name=mine"]) == []
    assert named_by_file(["dataset=mbpp", "dataset.path=/a/mbpp.jsonl"]) == []


@pytest.mark.app
def test_a_dataset_named_by_its_file_composes_with_hydras_flags(tmp_path):
    """The overrides that name the dataset go before Hydra's own flags: after `--cfg job`
    Hydra's parser refused them ("unrecognized arguments")."""
    import subprocess
    import sys

    proc = subprocess.run(
        [str(Path(sys.executable).with_name("prm-label")), "dataset=processbench",
         "dataset.path=../d/math.json", "--cfg", "job"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "name: processbench_math" in proc.stdout


def test_rays_token_auth_notice_is_dropped_and_real_warnings_pass(caplog):
    import logging

    from pipelines.engine.runtime import quiet_ray_notices

    quiet_ray_notices()
    logger = logging.getLogger("ray._private.authentication.authentication_token_setup")
    with caplog.at_level(logging.WARNING):
        logger.warning("Token authentication is enabled for this Ray cluster. Set ...")
        logger.warning("node 1 ran out of memory")
    assert [r.getMessage() for r in caplog.records] == ["node 1 ran out of memory"]
