"""Stable identifiers and seeds: the reason the same config gives the same shards.

Everything is derived with BLAKE2b over a canonical text form, never Python's `hash()`
(salted per process) and never the wall clock.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def _digest(*parts: object, size: int = 16) -> str:
    h = hashlib.blake2b(digest_size=size)
    for part in parts:
        h.update(str(part).encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")  # unit separator: ("ab", "c") and ("a", "bc") must differ
    return h.hexdigest()


def problem_id(domain: str, question: str, reference: str = "") -> str:
    """Content hash of a problem: the same text gives the same id in every dataset."""
    return "p" + _digest(domain, " ".join(question.split()), reference.strip(), size=8)


def chain_id(problem_id_: str, model: str, index: int, steps: tuple[str, ...] = ()) -> str:
    """Id of the `index`-th chain of a problem from a given model, with its content (`steps`:
    the sampled text, or a given chain's steps): two chains share an id only when they are
    the same text, so a diff never pairs texts that different sampler settings produced."""
    return "c" + _digest(problem_id_, model, index, *steps, size=8)


def derive_seed(base_seed: int, *parts: object) -> int:
    """A 31-bit seed from (base seed, problem, chain, step, rollout, ...)."""
    return int(_digest(base_seed, *parts, size=8), 16) & 0x7FFF_FFFF


def config_hash(config: dict[str, Any]) -> str:
    """Hash of a resolved config (keys sorted), for provenance and cache keys."""
    return _digest(json.dumps(config, sort_keys=True, default=str), size=8)
