"""prm-train. Public names: `run` (pipelines.train.app), `TrainAppConfig` and its enums
(pipelines.train.config), `ChainStream` (pipelines.train.data). The checkpoint it writes
and reads (`StepFormat`, `tokenize_row`, `ProcessRewardModel`, `new_prm`,
`save_checkpoint`, `load_checkpoint`, and prm-export) is `pipelines.checkpoint`. Nothing is
imported here: the config loads without torch."""
