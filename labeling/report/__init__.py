"""Statistics of a labeled dataset, computed lazily with polars over its shards.

Modules (import them by their full path; this file imports nothing):
- `labeling.report.stats`: counts, label distributions, agreement, histograms, cost, quarantine.
- `labeling.report.coverage`: what each source could judge, what it left unverifiable and why.
- `labeling.report.diff`: what changed between two versions of a labeled dataset.
"""

__all__ = ["coverage", "diff", "stats"]
