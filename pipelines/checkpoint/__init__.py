"""The PRM checkpoint format, read by training, export, serving, rewards, eval, search and
scoring alike (so none of them imports the trainer to read a checkpoint).

Modules (import them by their full path; this file imports nothing, so the torch-free
`format` loads without torch):
- `pipelines.checkpoint.format`: `StepFormat` (the text format, `prm_format.json`),
  `ExportFormat` (the layouts), no torch.
- `pipelines.checkpoint.model`: the PRM as trained (`ProcessRewardModel`), `tokenize_row`,
  `collate`, tokenizer and model loading.
- `pipelines.checkpoint.export`: checkpoints as Hugging Face directories (`new_prm`,
  `save_checkpoint`, `load_checkpoint`, `export` and the `prm-export` command).
- `pipelines.checkpoint.serving`: how vLLM serves a checkpoint (`vllm_engine_kwargs`,
  `serve_args`, `serve_command`) and the checkpoint's README (`model_card`), no torch.
"""

__all__ = ["export", "format", "model", "serving"]
