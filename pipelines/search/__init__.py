"""prm-search. Public names: `run` (pipelines.search.app), `SearchConfig`, `Strategy`
(pipelines.search.config), `SearchJob` (pipelines.search.job), `run_tasks` (driver).
Import the submodules directly; this package imports nothing itself."""
