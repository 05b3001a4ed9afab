"""prm-label. Public names: `run` (pipelines.label.app), `LabelJobConfig`, `validate`
(pipelines.label.config), `LabelJob` (pipelines.label.job). Import the submodules directly;
this package imports nothing itself so that Ray workers load only what they use."""
