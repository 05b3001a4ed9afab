"""docs/schema.md documents every shard column (in schema order) and every registered label
source with its role and columns."""

from __future__ import annotations

import re
from pathlib import Path

from labeling import registry
from labeling.schema import LABELED_SCHEMA

DOC = Path(__file__).resolve().parents[1] / "docs" / "schema.md"


def _tables() -> tuple[list[list[str]], list[list[str]]]:
    text = DOC.read_text()
    column_part, _, source_part = text.partition("## Label sources")

    def rows(part: str) -> list[list[str]]:
        return [[c.strip() for c in line.strip("|").split("|")]
                for line in part.splitlines() if re.match(r"^\| `", line)]

    return rows(column_part), rows(source_part)


def test_the_column_table_is_the_schema():
    columns, _ = _tables()
    assert [r[0].strip("`") for r in columns] == LABELED_SCHEMA.names


def test_the_source_table_is_the_registry():
    _, sources = _tables()
    documented = {r[0].strip("`"): r for r in sources}
    assert list(documented) == [s.name for s in registry.specs()]
    for spec in registry.specs():
        row = documented[spec.name]
        assert row[1] == spec.role.value
        assert re.findall(r"`([a-z_]+)`", row[3]) == [f.name for f in spec.fields()]
