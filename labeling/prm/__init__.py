"""The pure parts of using a trained PRM: step-score checks and aggregation for guided
search, rewards for RL trainers, and the ProcessBench metric.

Modules (import them by their full path; this file imports nothing):
- `labeling.prm.search`: step-score checks, aggregation, votes, beam shapes.
- `labeling.prm.reward`: what trainers send, step scores folded into one reward, step positions.
- `labeling.prm.processbench`: the ProcessBench metric and the precision of `incorrect` verdicts.
"""

__all__ = ["processbench", "reward", "search"]
