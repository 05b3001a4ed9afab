"""Label audits: what a label claims, which steps a reviewer sees, the reviewer's verdicts
read and checked, and label quality estimated from them with binomial intervals. Pure.

Modules (import them by their full path; this file imports nothing):
- `labeling.audit.claims`: what a step label claims and whether the reviewer's answers make it true.
- `labeling.audit.sample`: the steps an audit reviews: stratified sample and uncertainty queue.
- `labeling.audit.verdicts`: reviewer verdict files (review page, Label Studio) read and checked.
- `labeling.audit.estimate`: precision, first-error agreement and accuracy from reviewed steps.
- `labeling.audit.intervals`: binomial confidence intervals and sample sizes.
"""

__all__ = ["claims", "estimate", "intervals", "sample", "verdicts"]
