"""prm-eval: config composition, mode=direct on ProcessBench json, mode=labels on shards."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from labeling.schema import VERDICT_STRUCT
from pipelines.eval.app import run
from tests.conftest import compose, shared


def _compose(*overrides):
    return compose(list(overrides), config_name="eval")


def test_config_composes_with_defaults():
    cfg = _compose()
    assert cfg.mode == "labels" and list(cfg.sources) == ["calc"]


def test_unknown_key_fails_at_compose():
    with pytest.raises(Exception, match="nosuchkey"):
        _compose("nosuchkey=1")


def test_unknown_mode_fails_before_any_work(tmp_path):
    from hydra.errors import ConfigCompositionException

    from pipelines.cli import ConfigError

    with pytest.raises((ConfigCompositionException, ConfigError)):
        run(_compose("mode=nope", f"output.dir={tmp_path}"))
    assert not (tmp_path / "metrics.json").exists()


def test_direct_mode_on_small_files(tmp_path, capsys):
    records = [
        {"id": "g-1", "problem": "q", "steps": ["Intro.", "2 + 2 = 5"], "label": 1},
        {"id": "g-2", "problem": "q", "steps": ["2 + 2 = 4", "Done."], "label": -1},
        {"id": "g-3", "problem": "q", "steps": ["3 * 3 = 9", "so 9 - 1 = 7"], "label": 0},
    ]
    (tmp_path / "gsm8k.json").write_text(json.dumps(records))
    out = tmp_path / "out"
    cfg = _compose("mode=direct", f"dataset_dir={tmp_path}", "subsets=[gsm8k]", f"output.dir={out}")
    metrics = run(cfg)
    m = metrics["calc"]["gsm8k"]
    assert (m["flags_right"], m["flags_wrong"], m["flags_after"]) == (1, 0, 1)
    assert m["acc_correct"] == 1.0 and m["acc_erroneous"] == 0.5
    assert json.loads((out / "metrics.json").read_text()) == metrics
    assert "gsm8k" in capsys.readouterr().out


def test_direct_mode_on_dev_split_is_precise(tmp_path):
    cfg = _compose(
        "mode=direct",
        f"dataset_dir={shared('processbench_dev/gsm8k.json').parent}",
        "subsets=[gsm8k]",
        f"output.dir={tmp_path}",
    )
    m = run(cfg)["calc"]["gsm8k"]
    assert m["chains"] == 158
    # Measured: 13 right flags, 0 wrong (precision 1.000, first-error recall 13/84 = 0.155).
    # A wrong flag on the split the calculator was tuned on is a regression; so is losing
    # more than one of the right ones.
    assert m["flags_wrong"] == 0 and m["precision_incorrect"] == 1.0
    assert m["flags_right"] >= 12 and m["first_error_recall"] >= 12 / 84


def _verdicts(source, statuses):
    return [
        {
            "source": source,
            "step": i,
            "status": s,
            "label": None,
            "score": None,
            "rollouts": 0,
            "evidence": "",
        }
        for i, s in enumerate(statuses)
    ]


def tests_labels_mode_reads_shards(tmp_path):
    schema = pa.schema(
        [
            ("completions", pa.list_(pa.string())),
            ("human_first_error", pa.int32()),
            ("source_dataset", pa.string()),
            ("verdicts", pa.list_(VERDICT_STRUCT)),
            ("first_error_step", pa.int32()),
        ]
    )
    rows = [
        {
            "completions": ["a", "b"],
            "human_first_error": 1,
            "source_dataset": "gsm8k",
            "verdicts": _verdicts("calc", ["correct", "incorrect"]),
            "first_error_step": 1,
        },
        {
            "completions": ["a", "b"],
            "human_first_error": -1,
            "source_dataset": "gsm8k",
            "verdicts": _verdicts("calc", ["incorrect", "correct"]),
            "first_error_step": -1,
        },
        {
            "completions": ["a"],
            "human_first_error": None,
            "source_dataset": "math",
            "verdicts": _verdicts("calc", ["unverifiable"]),
            "first_error_step": -1,
        },
    ]
    shard_dir = tmp_path / "run" / "shards"
    shard_dir.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), shard_dir / "part-0.parquet")
    # Only the shards a manifest lists count: quarantine files and leftovers are ignored.
    (tmp_path / "run" / "manifest.json").write_text(
        json.dumps({"shards": [{"path": "shards/part-0.parquet"}]})
    )
    (tmp_path / "run" / "quarantine").mkdir()
    pq.write_table(pa.table({"reason": ["x"]}), tmp_path / "run" / "quarantine" / "part-0.parquet")
    pq.write_table(pa.table({"junk": [1]}), shard_dir / "part-9.parquet")
    metrics = run(_compose(f"labels_dir={tmp_path / 'run'}", f"output.dir={tmp_path / 'o'}"))
    calc, combined = metrics["calc"]["gsm8k"], metrics["combined"]["gsm8k"]
    assert (calc["flags_right"], calc["flags_wrong"]) == (1, 1)
    assert combined["acc_erroneous"] == 1.0 and combined["acc_correct"] == 1.0
    assert metrics["calc"]["math"]["unlabeled"] == 1


def tests_labels_mode_without_shards(tmp_path):
    with pytest.raises(FileNotFoundError, match="manifest.json"):
        run(_compose(f"labels_dir={tmp_path}", f"output.dir={tmp_path / 'o'}"))


def test_checkpoint_mode_is_dispatched(tmp_path):
    with pytest.raises(ValueError, match="set checkpoint="):
        run(_compose("mode=checkpoint", f"output.dir={tmp_path}"))
