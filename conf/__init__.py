"""The apps' Hydra config (YAML only; nothing to import).

This folder is the source of truth. A built wheel ships it as the package `prm_conf`
(see setup.py), which is how an installed `prm-label` finds it from any directory;
`pipelines/confdir.py` is the one place that says where the config lives.
"""
