"""Units cut by content: order-free, bounded, and a refresh relabels only what is new."""

from __future__ import annotations

import random

import pytest

from labeling.unit_plan import plan_units, refresh_cost


def _ids(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [f"p{rng.getrandbits(64):016x}" for _ in range(n)]


def _members(plan) -> dict[int, tuple[str, ...]]:
    return {u.unit: u.members for u in plan}


def test_fresh_plan_ignores_input_order_and_bounds_units():
    ids = _ids(1000)
    shuffled = random.Random(1).sample(ids, len(ids))
    a, b = plan_units(ids, 64), plan_units(shuffled, 64)
    assert _members(a) == _members(b)
    assert max(len(u.members) for u in a) == 64 and len(a) == 16
    assert sorted(m for u in a for m in u.members) == sorted(ids)


@pytest.mark.parametrize("change", ["insert", "delete", "shuffle"])
def test_refresh_labels_only_new_problems(change):
    ids = _ids(4000)
    old = _members(plan_units(ids, 64))
    rng = random.Random(2)
    if change == "insert":
        new_ids = ids[:]
        for x in _ids(40, seed=9):
            new_ids.insert(rng.randrange(len(new_ids) + 1), x)
    elif change == "delete":
        new_ids = rng.sample(ids, len(ids) - 40)
    else:
        new_ids = rng.sample(ids, len(ids))
    plan = plan_units(new_ids, 64, old)
    cost = refresh_cost(plan)
    assert sorted(m for u in plan for m in u.members) == sorted(set(new_ids))
    assert max(len(u.members) for u in plan) <= 64
    if change == "insert":
        assert cost["new"] == 1 and cost["problems_labeled"] == 40
        assert cost["same"] == len(old) and cost["shrunk"] == 0
    elif change == "delete":
        assert cost["new"] == 0 and cost["problems_labeled"] == 0
        assert cost["same"] + cost["shrunk"] == len(old) and cost["shrunk"] > 0
    else:
        assert cost == {"new": 0, "same": len(old), "shrunk": 0, "problems_labeled": 0}
    # A unit keeps its number: what a refresh copies is found by it.
    for u in plan:
        if u.kind != "new":
            assert set(u.members) <= set(old[u.unit])


def test_a_unit_whose_members_all_left_disappears_and_numbers_stay_unique():
    old = {0: ["pa", "pb"], 1: ["pc"], 2: ["pd"]}
    plan = plan_units(["pa", "pd", "pz", "py"], 2, old)
    assert [(u.unit, u.members, u.kind) for u in plan] == [
        (0, ("pa",), "shrunk"), (2, ("pd",), "same"), (3, ("py", "pz"), "new")]


def test_unit_size_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        plan_units(["pa"], 0)
