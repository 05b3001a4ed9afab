"""What a Hydra app's command line holds: Hydra's own flags, the overrides, and the sweep.

Hydra's parser takes the overrides as one run of positional words: `prm-label a=1 -m b=2`
dies in argparse ("unrecognized arguments"). `split_argv` reads the line the way Hydra's
parser declares its flags, so `HydraApp` can hand Hydra one line with every flag first and
every override after them, wherever the user wrote `-m` or `--config-dir`.

`sweep_combinations` expands a multirun's sweeps (`a=1,2 b=x,y`) into the overrides of each
job, so every job's config is validated before the first job starts; `sweep_name` names the
folder of one job from the values of the swept keys only.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

# Jobs of a sweep checked one by one before the first starts; a larger sweep checks this many
# (each key's values all appear among them: the first value of every key, then each value).
MAX_CHECKED_JOBS = 64


@dataclass(frozen=True)
class HydraArgv:
    """A command line split: Hydra's flags (with their values, in the order given) and the
    overrides (in the order given)."""

    flags: list[str] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)
    multirun: bool = False
    config_name: str | None = None
    config_dir: str | None = None
    # A flag that shows something instead of running (--cfg, --info, --hydra-help, ...).
    shows: bool = False

    def line(self, extra: Sequence[str] = ()) -> list[str]:
        """The line Hydra's parser takes: flags, then `extra` overrides, then the user's."""
        return [*self.flags, *extra, *self.overrides]


_RUNS = {"--run", "-r", "--multirun", "-m"}


def split_argv(argv: Sequence[str]) -> HydraArgv:
    """Split `argv` by Hydra's own parser's declarations (which flags take a value)."""
    from hydra._internal.utils import get_args_parser

    takes_value: dict[str, Any] = {}
    for action in get_args_parser()._actions:
        for opt in action.option_strings:
            takes_value[opt] = action
    flags: list[str] = []
    overrides: list[str] = []
    values: dict[str, str] = {}
    shows = False
    i = 0
    while i < len(argv):
        word = argv[i]
        name = word.split("=", 1)[0] if word.startswith("--") else word
        action = takes_value.get(name)
        if action is None:
            overrides.append(word)
            i += 1
            continue
        flags.append(word)
        i += 1
        value = word.split("=", 1)[1] if "=" in word and word.startswith("--") else None
        wants = action.nargs is None  # a flag with nargs 0 (store_true, version) takes none
        optional = action.nargs == "?"
        if value is None and i < len(argv) and (wants or (
                optional and action.choices and argv[i] in action.choices)):
            value = argv[i]
            flags.append(value)
            i += 1
        values[action.dest] = value if value is not None else "true"
        if name not in _RUNS and action.dest not in {"config_name", "config_dir", "resolve"}:
            shows = True
    return HydraArgv(flags, overrides, "multirun" in values, values.get("config_name"),
                     values.get("config_dir"), shows)


def swept_keys(overrides: Sequence[str]) -> list[str]:
    """The keys a multirun sweeps (`a=1,2`, `a=range(3)`, `a=choice(x,y)`), in order."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parsed = OverridesParser.create().parse_overrides(list(overrides))
    return [o.get_key_element() for o in parsed if o.is_sweep_override()]


def sweep_combinations(overrides: Sequence[str]) -> list[list[str]]:
    """The overrides of each job of the sweep `overrides` (one job when nothing is swept):
    all of them up to `MAX_CHECKED_JOBS`, else a sample in which every value of every swept
    key appears."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parsed = OverridesParser.create().parse_overrides(list(overrides))
    choices: list[list[str]] = []
    for o in parsed:
        if o.is_sweep_override():
            key = o.get_key_element()
            choices.append([f"{key}={v}" for v in o.sweep_string_iterator()])
        else:
            choices.append([o.input_line or ""])
    total = 1
    for c in choices:
        total *= len(c)
    if total <= MAX_CHECKED_JOBS:
        return [list(job) for job in itertools.product(*choices)]
    first = [c[0] for c in choices]
    jobs = [first]
    for i, c in enumerate(choices):
        for v in c[1:]:
            jobs.append([*first[:i], v, *first[i + 1:]])
    return jobs


_UNSAFE = re.compile(r"[^A-Za-z0-9_.=,+-]+")


def sweep_name(job_overrides: Sequence[str], swept: Sequence[str], number: int) -> str:
    """A job's folder name within its sweep: its values of the swept keys
    (`sampler.temperature=0.6`, several joined by `,`), characters a path would trip on
    replaced by `_`; `job-<number>` when that says nothing or runs too long. `output.dir`
    itself is never part of it (a sweep over it already keeps the jobs apart)."""
    keys = [k for k in swept if k.lstrip("+~") != "output.dir"]
    by_key = {o.split("=", 1)[0].lstrip("+~"): o.lstrip("+~") for o in job_overrides
              if "=" in o}
    parts = [_UNSAFE.sub("_", by_key[k.lstrip("+~")]) for k in keys if k.lstrip("+~") in by_key]
    name = ",".join(parts).strip("._")
    return name if name and len(name) <= 120 else f"job-{number}"


@contextmanager
def hydra_composer(task: str, conf_dir: str, extra_dir: str | None
                   ) -> Iterator[Callable[[str, Sequence[str], bool], Any]]:  # fmt: skip
    """Inside: `compose(config_name, overrides, multirun)` gives the config (with its `hydra`
    node) that Hydra composes for such a line: the primary `conf_dir`, `extra_dir`
    (`--config-dir`) searched first, `config_name` (`--config-name`), one job's overrides;
    it raises what Hydra raises. Hydra stays initialised until the block ends (a sentence
    about a group lists the group's options from it)."""
    import os

    from hydra._internal.hydra import Hydra
    from hydra._internal.utils import create_config_search_path
    from hydra.core.config_search_path import SearchPathQuery
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    search = create_config_search_path(conf_dir)
    if extra_dir is not None:  # where Hydra's own `--config-dir` puts it
        search.prepend(provider="command-line", path=f"file://{os.path.abspath(extra_dir)}",
                       anchor=SearchPathQuery(provider="schema"))
    hydra = Hydra.create_main_hydra2(task_name=task, config_search_path=search)

    def compose(config_name: str, overrides: Sequence[str], multirun: bool) -> Any:
        return hydra.compose_config(config_name, list(overrides),
                                    RunMode.MULTIRUN if multirun else RunMode.RUN,
                                    with_log_configuration=False)

    try:
        yield compose
    finally:
        GlobalHydra.instance().clear()


def sweep_job() -> dict[str, Any] | None:
    """Inside a multirun job: its number, its folder name (`sweep_name`), the swept keys and
    the job's overrides (what its manifest records); None outside a multirun (a single run,
    or `run(cfg)` called directly)."""
    import sys

    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    if not HydraConfig.initialized():
        return None
    hc = HydraConfig.get()
    if hc.mode != RunMode.MULTIRUN:
        return None
    swept = swept_keys(split_argv(sys.argv[1:]).overrides)
    overrides = list(hc.overrides.task)
    number = int(hc.job.num or 0)
    return {"job": number, "name": sweep_name(overrides, swept, number), "swept": swept,
            "overrides": overrides}


def in_sweep(cfg: Any) -> None:
    """In a multirun job, `output.dir` gets the job's own folder (`sweep_job`), so no job
    writes over another's output; nothing outside a multirun, or when nothing is swept."""
    from pathlib import Path

    from omegaconf import OmegaConf

    job = sweep_job()
    apart = [k for k in job["swept"] if k.lstrip("+~") != "output.dir"] if job else []
    if not apart or OmegaConf.select(cfg, "output.dir") is None:
        return  # nothing swept, or only output.dir: each job writes where a run would
    cfg.output.dir = str(Path(str(cfg.output.dir)) / job["name"])
