import pyarrow.parquet as pq
import pytest

from labeling.rows import labeled_row, quarantine_row
from labeling.schema import (
    LABELED_SCHEMA,
    QUARANTINE_SCHEMA,
    Chain,
    LabeledChain,
    Problem,
    Quarantined,
    Status,
    StepVerdict,
)
from labeling.shards import DatasetDir, rows_to_table, summarize_units


def _row(pid="p1", index=0):
    problem = Problem(pid, "math", "unit", "What is 2+2?", "4")
    chain = Chain(
        pid, f"c{index}", index, "2+2 = 4\n\n\\boxed{4}", ("2+2 = 4", "\\boxed{4}"), "m", 7, 12
    )
    verdicts = {
        "calc": [
            StepVerdict(Status.CORRECT, True, None, "2+2=4 holds"),
            StepVerdict.unverifiable(),
        ],
        "answer": [StepVerdict.unverifiable(), StepVerdict(Status.CORRECT, True, 1.0, "ok")],
    }
    lc = LabeledChain(problem, chain, problem.question, verdicts, [True, True], -1, "4", True)
    return labeled_row(lc, "verifier_first", "h")


def test_row_matches_schema_and_keeps_every_source():
    table = rows_to_table([_row()], LABELED_SCHEMA)
    assert table.schema == LABELED_SCHEMA
    row = table.to_pylist()[0]
    assert row["completions"] == ["2+2 = 4", "\\boxed{4}"] and row["labels"] == [True, True]
    assert row["calc_labels"] == [True, None] and row["answer_labels"] == [None, True]
    assert row["mc_scores"] is None  # the source did not run
    sources = {(v["source"], v["step"]) for v in row["verdicts"]}
    assert sources == {("answer", 1), ("calc", 0)}  # bare unverifiable verdicts are implied


def test_unknown_column_is_an_error():
    with pytest.raises(KeyError, match="not in the schema"):
        rows_to_table([{**_row(), "lables": []}], LABELED_SCHEMA)


def test_unit_write_verify_and_corruption(tmp_path):
    d = DatasetDir(tmp_path)
    q = quarantine_row(Quarantined("unit", 3, "missing field 'answer'", "{}"), "h")
    rec = d.write_unit(
        0, "k0", [_row("p2", 1), _row("p1", 0)], [q], {"problems_in": 3}, {"sample": 12}, 0.1
    )
    assert d.verify_unit(rec) == ""
    table = pq.read_table(d.shard_path(0))
    assert table.column("problem_id").to_pylist() == ["p1", "p2"]  # sorted by problem
    assert pq.read_table(d.quarantine_path(0)).schema == QUARANTINE_SCHEMA
    assert d.done_units()[0].key == "k0"
    # truncation and bit flips are both detected
    data = d.shard_path(0).read_bytes()
    d.shard_path(0).write_bytes(data[:-10])
    assert "bytes" in d.verify_unit(rec)
    d.shard_path(0).write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert "SHA-256" in d.verify_unit(rec)
    d.shard_path(0).unlink()
    assert "missing" in d.verify_unit(rec)


def test_same_rows_give_same_bytes(tmp_path):
    a, b = DatasetDir(tmp_path / "a"), DatasetDir(tmp_path / "b")
    ra = a.write_unit(0, "k", [_row()], [], {}, {}, 0.0)
    rb = b.write_unit(0, "k", [_row()], [], {}, {}, 0.0)
    assert ra.shard_sha256 == rb.shard_sha256


def test_failed_write_leaves_no_file(tmp_path, monkeypatch):
    import labeling.shards as shards

    d = DatasetDir(tmp_path)

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(shards.pq, "write_table", boom)
    with pytest.raises(OSError):
        d.write_unit(0, "k", [_row()], [], {}, {}, 0.0)
    assert not d.shard_path(0).exists() and d.read_record(0) is None
    assert not list((tmp_path / "shards").glob(".*tmp*"))


def test_summary_totals(tmp_path):
    d = DatasetDir(tmp_path)
    recs = [
        d.write_unit(
            i, f"k{i}", [_row(f"p{i}")], [], {"rows": 1, "problems_in": 1}, {"sample": 5}, 0
        )
        for i in range(3)
    ]
    s = summarize_units(recs)
    assert s["counts"] == {"rows": 3, "problems_in": 3} and s["tokens"] == {"sample": 15}
    assert [x["unit"] for x in s["shards"]] == [0, 1, 2]
