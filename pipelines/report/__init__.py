"""prm-report. Public names: `write_report`, `run` (pipelines.report.app), `ReportConfig`
(pipelines.report.config)."""
