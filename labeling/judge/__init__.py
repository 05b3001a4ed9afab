"""The `judge` source's protocol: prompt, defensive parsing of the judge's answers, votes
to verdicts. Pure; `verifiers.judge` sends the requests.

Modules (import them by their full path; this file imports nothing):
- `labeling.judge.protocol`: a chain's steps judged at once, ProcessBench's set-up.
- `labeling.judge.sections`: a reasoning trace's sections, each judged on its own
  (DeltaBench's set-up).
"""

__all__ = ["protocol", "sections"]
