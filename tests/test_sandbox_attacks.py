"""Attack families against the sandbox's verdict, each cheat with an honest twin.

A cheating case returns a wrong answer through one trick and must not pass; its twin runs
the same set-up (imports, patches, scans) and returns the right answer, and must pass: so a
cheat that fails proves the trick was stopped, not that its set-up crashed. All programs
run once, in parallel, in a module fixture. The older single cases live in test_redteam.py,
host-side attacks and honest programs in test_sandbox_host.py (ctypes: 7 cheats here and 7
reaches for the test process there; every other family has at least 10 cases). All
cheats but two (swap_type_to_list, patch_marshal_dumps: kept as guards of the new design)
passed the earlier harness, which ran tests and program in one interpreter.
"""

from __future__ import annotations

import pytest

from labeling.schema import Problem
from tests.conftest import needs_sandbox
from verifiers.sandbox.runner import Sandbox, SandboxConfig

pytestmark = [pytest.mark.sandbox, needs_sandbox]

CONFIG = SandboxConfig(timeout_s=8, cpu_s=4, memory_mb=256, max_processes=16, tmp_mb=8)
DOUBLE = Problem("double", "code", "attack", "", tests=("assert f(2) == 4", "assert f(3) == 6"))
PAIR = Problem(
    "pair", "code", "attack", "", tests=("assert f(2) == [2, 4]", "assert f(3) == [3, 6]")
)
TWO = Problem("two", "code", "attack", "", tests=("assert f(2) == (2, 4)", "assert f(3) == (3, 6)"))
TEXT = Problem("text", "code", "attack", "", tests=("assert f(2) == 'xx'", "assert f(3) == 'xxx'"))
TABLE = Problem(
    "table", "code", "attack", "", tests=("assert f(2) == {'a': 2}", "assert f(3) == {'a': 3}")
)
CLOSE = Problem(
    "close",
    "code",
    "attack",
    "",
    tests=("assert math.isclose(f(2), 4.0)", "assert math.isclose(f(3), 6.0)"),
)
ABS = Problem(
    "abs", "code", "attack", "", tests=("assert abs(f(2) - 4) < 0.5", "assert abs(f(3) - 6) < 0.5")
)
SORTED = Problem("sorted", "code", "attack", "", tests=("assert sorted(f(2)) == [2, 4]",))
SUM = Problem("sum", "code", "attack", "", tests=("assert sum(f(2)) == 6",))
SETCMP = Problem("set", "code", "attack", "", tests=("assert set(f(2)) == {2, 4}",))
LENCMP = Problem("len", "code", "attack", "", tests=("assert len(f(2)) == 2 and f(2)[1] == 4",))
ISINST = Problem("isinst", "code", "attack", "", tests=("assert isinstance(f(2), int)",))
IMPORTS = Problem(
    "imports", "code", "attack", "", tests=("import math\nassert math.isclose(f(2), 4.0)",)
)
DATA = Problem(
    "data",
    "code",
    "attack",
    "",
    # f(0) runs first: a program that empties CASES then meets an `all` of nothing.
    tests=("assert f(0) == 0", "assert all(f(a) == b for a, b in CASES)"),
    test_setup="CASES = [(2, 4), (3, 6)]",
)

# Forged equality through standard-library types: (problem, set-up, cheat, honest answer).
_E = "class E:\n    def __eq__(self, o):\n        return True\n    __hash__ = object.__hash__\n"
STDLIB_EQUALITY = {
    "mock_any": (DOUBLE, "from unittest.mock import ANY", "ANY", "x * 2"),
    "list_of_mock_any": (PAIR, "from unittest.mock import ANY", "[ANY, ANY]", "[x, 2 * x]"),
    "dict_of_mock_any": (TABLE, "from unittest.mock import ANY", "{'a': ANY}", "{'a': x}"),
    "userlist_of_hostile": (
        PAIR,
        "from collections import UserList\n" + _E,
        "UserList([E(), E()])",
        "list(UserList([x, 2 * x]))",
    ),
    "userstring_hostile_data": (
        TEXT,
        "from collections import UserString\n" + _E + "u = UserString('')\nu.data = E()",
        "u",
        "str(UserString('x' * x))",
    ),
    "mappingproxy_of_mock_any": (
        TABLE,
        "from types import MappingProxyType\nfrom unittest.mock import ANY",
        "MappingProxyType({'a': ANY})",
        "dict(MappingProxyType({'a': x}))",
    ),
    "intenum_borrowed_eq": (
        DOUBLE,
        "from enum import IntEnum\nfrom unittest.mock import ANY\nclass C(IntEnum):\n"
        "    ZERO = 0\n    FOUR = 4\n    SIX = 6\n    __eq__ = type(ANY).__eq__\n"
        "    __hash__ = int.__hash__",
        "C.ZERO",
        "int(C(2 * x))",
    ),
    "fraction_hostile_numerator": (
        DOUBLE,
        "from fractions import Fraction\nclass I(int):\n    def __eq__(self, o):\n"
        "        return True\n    __hash__ = int.__hash__\nfr = Fraction(7)\nfr._numerator = I(0)",
        "fr",
        "int(Fraction(2 * x))",
    ),
    "decimal_subclass_borrowed_eq": (
        DOUBLE,
        "from decimal import Decimal\nfrom unittest.mock import ANY\n"
        "class D(Decimal):\n    __eq__ = type(ANY).__eq__\n    __hash__ = Decimal.__hash__",
        "D(0)",
        "int(D(2 * x))",
    ),
    "int_subclass_borrowed_any_eq": (
        DOUBLE,
        "from unittest.mock import ANY\nclass I(int):\n    __eq__ = type(ANY).__eq__\n"
        "    __hash__ = int.__hash__",
        "I(0)",
        "int(I(2 * x))",
    ),
    "list_subclass_borrowed_eq": (
        PAIR,
        "from unittest.mock import ANY\nclass L(list):\n    __eq__ = type(ANY).__eq__",
        "L([0])",
        "list(L([x, 2 * x]))",
    ),
    "str_subclass_borrowed_eq": (
        TEXT,
        "from unittest.mock import ANY\nclass S(str):\n    __eq__ = type(ANY).__eq__\n"
        "    __hash__ = str.__hash__",
        "S('no')",
        "str(S('x' * x))",
    ),
    "namedtuple_of_mock_any": (
        TWO,
        "from collections import namedtuple\nfrom unittest.mock import ANY\n"
        "P = namedtuple('P', 'a b')",
        "P(ANY, ANY)",
        "tuple(P(x, 2 * x))",
    ),
    "gc_edit_counter_eq": (  # a stdlib type's real dict, edited around type.__setattr__
        TABLE,
        "import ctypes, gc\nfrom collections import Counter\nfrom unittest.mock import ANY\n"
        "gc.get_referents(Counter.__dict__)[0]['__eq__'] = type(ANY).__eq__\n"
        "ctypes.pythonapi.PyType_Modified(ctypes.py_object(Counter))",
        "Counter(b=1)",
        "Counter(a=x)",
    ),
    "gc_edit_fraction_eq": (
        DOUBLE,
        "import ctypes, gc\nfrom fractions import Fraction\nfrom unittest.mock import ANY\n"
        "gc.get_referents(Fraction.__dict__)[0]['__eq__'] = type(ANY).__eq__\n"
        "ctypes.pythonapi.PyType_Modified(ctypes.py_object(Fraction))",
        "Fraction(0)",
        "int(Fraction(2 * x))",
    ),
}

# The tests' names and data: (problem, set-up, cheat, honest answer). The set-up of a cheat
# shadows or patches what the tests use; the twin's set-up does the same thing honestly.
NAMESPACE = {
    "shadow_abs": (ABS, "def abs(v):\n    return 0", "100", "x * 2"),
    "shadow_sorted": (SORTED, "def sorted(v):\n    return [2, 4]", "[0]", "[2 * x, x]"),
    "shadow_set": (SETCMP, "def set(v):\n    return {2, 4}", "[0]", "[x, 2 * x]"),
    "shadow_len": (LENCMP, "def len(v):\n    return 2", "[0, 4, 9, 9]", "[x, 2 * x]"),
    "shadow_isinstance": (
        ISINST,
        "def isinstance(a, b):\n    return True",
        "'4'",
        "x * 2",
    ),
    "fake_math_global": (
        CLOSE,
        "import types\nmath = types.SimpleNamespace(isclose=lambda *a, **k: True)",
        "0.0",
        "2.0 * x",
    ),
    "patched_math_module": (
        CLOSE,
        "import math\nmath.isclose = lambda *a, **k: True",
        "0.0",
        "2.0 * x",
    ),
    "patched_module_tests_import": (
        IMPORTS,
        "import math\nmath.isclose = lambda *a, **k: True",
        "0.0",
        "2.0 * x",
    ),
    "fake_module_in_sys_modules": (
        IMPORTS,
        "import sys, types\nfake = types.ModuleType('math')\n"
        "fake.isclose = lambda *a, **k: True\nsys.modules['math'] = fake",
        "0.0",
        "2.0 * x",
    ),
    "shadow_sum": (SUM, "def sum(v):\n    return 6", "[0]", "[x, 2 * x]"),
    "shrink_test_data_gc": (
        DATA,
        "import gc\ndef shrink():\n    for o in gc.get_objects():\n"
        "        if type(o) is list and o[:1] == [(2, 4)]:\n            o.clear()",
        "shrink() or 0",
        "shrink() or x * 2",
    ),
    "shrink_test_data_globals": (
        DATA,
        "def shrink():\n    globals().get('CASES', []).clear()",
        "shrink() or 0",
        "shrink() or x * 2",
    ),
    "shrink_test_data_caller_frame": (
        DATA,
        "import sys\ndef shrink():\n    frame = sys._getframe()\n    while frame:\n"
        "        frame.f_globals.get('CASES', []).clear()\n        frame = frame.f_back",
        "shrink() or 0",
        "shrink() or x * 2",
    ),
}


def program(setup: str, answer: str) -> str:
    return f"{setup}\ndef f(x):\n    return {answer}\n"


def twins(family: dict) -> dict[str, tuple[Problem, str, bool]]:
    out = {}
    for name, (problem, setup, cheat, honest) in family.items():
        out[f"{name}:cheat"] = (problem, program(setup, cheat), False)
        out[f"{name}:honest"] = (problem, program(setup, honest), True)
    return out


# ctypes against the verdict: cheats patch the program's own memory (the verdict is made
# elsewhere); containment cases try to reach the test process's memory or descriptors.
_SLOT = (  # tp_richcompare of a builtin type -> the generic slot that calls its dict's __eq__
    "import ctypes, gc\nclass X:\n    def __eq__(s, o):\n        return True\n"
    "SLOT = 200  # offsetof(PyTypeObject, tp_richcompare), CPython 3.11 x86-64\n"
    "def rig(t, on):\n    cell = ctypes.c_void_p.from_address(id(t) + SLOT)\n"
    "    d = gc.get_referents(t.__dict__)[0]\n"
    "    if on:\n        rig.saved = cell.value, d['__eq__']\n"
    "        cell.value = ctypes.c_void_p.from_address(id(X) + SLOT).value\n"
    "        d['__eq__'] = lambda a, b: True\n"
    "    else:\n        cell.value, d['__eq__'] = rig.saved\n"
    "    ctypes.pythonapi.PyType_Modified(ctypes.py_object(t))\n"
)
CTYPES_CHEATS = {
    "patch_expected_constants": (  # the caller's code constants 4 and 6 become the answer
        DOUBLE,
        "import ctypes, sys\ndef patch(value):\n    frame = sys._getframe(2)\n"
        "    while frame:\n        consts = frame.f_code.co_consts\n"
        "        for i, c in enumerate(consts):\n"
        "            if type(c) is int and c in (4, 6):\n"
        "                ctypes.py_object.from_address(id(consts) + 24 + 8 * i).value = "
        "value if value is not None else c\n        frame = frame.f_back",
        "patch(100) or 100",
        "patch(None) or x * 2",
    ),
    "int_richcompare_slot": (
        DOUBLE,
        _SLOT + "def answer(x, keep):\n    rig(int, True)\n    if not keep:\n"
        "        rig(int, False)\n    return 100 if keep else 2 * x",
        "answer(x, True)",
        "answer(x, False)",
    ),
    "str_richcompare_slot": (
        TEXT,
        _SLOT + "def answer(x, keep):\n    rig(str, True)\n    if not keep:\n"
        "        rig(str, False)\n    return 'no' if keep else 'x' * x",
        "answer(x, True)",
        "answer(x, False)",
    ),
    "list_richcompare_slot": (
        PAIR,
        _SLOT + "def answer(x, keep):\n    rig(list, True)\n    if not keep:\n"
        "        rig(list, False)\n    return [0] if keep else [x, 2 * x]",
        "answer(x, True)",
        "answer(x, False)",
    ),
    "float_richcompare_slot": (
        DOUBLE,
        _SLOT + "def answer(x, keep):\n    rig(float, True)\n    if not keep:\n"
        "        rig(float, False)\n    return 100.0 if keep else 2.0 * x",
        "answer(x, True)",
        "answer(x, False)",
    ),
    "swap_type_to_list": (
        PAIR,
        "import ctypes\nclass L(list):\n    def __eq__(s, o):\n        return True\n"
        "def swap(v):\n    ctypes.c_void_p.from_address(id(v) + 8).value = id(list)\n    return v",
        "swap(L([0]))",
        "swap(L([x, 2 * x]))",
    ),
    "patch_marshal_dumps": (
        DOUBLE,
        "import marshal\nfake = marshal.dumps(4)\nmarshal.dumps = lambda *a, **k: fake",
        "0",
        "x * 2",
    ),
}


@pytest.fixture(scope="module")
def outcomes() -> dict[str, object]:
    cases: dict[str, tuple[Problem, str, bool]] = {}
    for family in (STDLIB_EQUALITY, NAMESPACE, CTYPES_CHEATS):
        cases.update(twins(family))
    names = list(cases)
    results = Sandbox(CONFIG).run_many([cases[n][:2] for n in names], workers=4)
    return {"results": dict(zip(names, results, strict=True)), "cases": cases}


def test_each_family_has_ten_cases():
    assert min(len(STDLIB_EQUALITY), len(NAMESPACE)) >= 10
    assert len(CTYPES_CHEATS) >= 5  # with the ctypes cases of test_sandbox_host.py: >= 10


def _names(*families: dict) -> list[str]:
    return sorted(f"{n}:{side}" for fam in families for n in fam for side in ("cheat", "honest"))


@pytest.mark.parametrize("name", _names(STDLIB_EQUALITY, NAMESPACE, CTYPES_CHEATS))
def test_cheat_fails_and_its_twin_passes(outcomes, name):
    result = outcomes["results"][name]
    expect = outcomes["cases"][name][2]
    assert result.passed is expect, f"{name}: {result}"
    if not expect:
        assert not result.timed_out and result.tests_passed < result.tests_total
