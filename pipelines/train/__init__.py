"""prm-train. Public names: `run` (pipelines.train.app), `TrainAppConfig` and its enums
(pipelines.train.config), `new_prm`, `save_checkpoint`, `load_checkpoint`, `export`,
`vllm_engine_kwargs`, `serve_args` (pipelines.train.export: checkpoints vLLM serves and
transformers load), `StepFormat`, `tokenize_row`, `ProcessRewardModel`
(pipelines.train.model), `ChainStream`, `synthetic_rows`, `write_shards`
(pipelines.train.data). Nothing is imported here: the config loads without torch."""
