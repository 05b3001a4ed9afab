"""The edges: Hydra apps, Ray orchestration, vLLM engine actors, PRM training and use.

One room per app or concern; each app's `main()` is its console script:
- `pipelines.label`  prm-label: config, job driver, unit labeler, sources, manifest, progress
- `pipelines.engine` vLLM engine actors and pools, completer, model preparation
- `pipelines.train`  prm-train: data, loop (Ray Train)
- `pipelines.checkpoint` the PRM checkpoint format every reader imports: StepFormat,
  tokenize_row, the model, load/save, prm-export
- `pipelines.eval`   prm-eval: ProcessBench metric runs, checkpoints
- `pipelines.serve`  a PRM behind vLLM's pooling runner: client, `vllm serve` launcher
  (`pipelines.scoring` is the in-process torch scorer)
- `pipelines.report` prm-report: stats -> HTML
- `pipelines.cli`    what the apps share: typed user errors, the one-sentence exit
Nothing here runs at import time.
"""
