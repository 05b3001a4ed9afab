"""prm-eval. Public names: `run` (pipelines.eval.app), `EvalConfig` (pipelines.eval.config),
`evaluate_checkpoint` (pipelines.eval.checkpoint)."""
