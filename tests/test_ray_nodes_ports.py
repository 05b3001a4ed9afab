"""The test clusters' port helper: every component of one cluster gets its own port even when
the kernel hands the same free port out twice in a row (a CI run failed when `ray start` was
given 46789 for both the GCS and the dashboard)."""

from __future__ import annotations

import itertools

from tests import ray_nodes


def test_a_port_the_kernel_hands_out_twice_goes_to_one_component_only(monkeypatch, tmp_path):
    repeats = itertools.chain([46789, 46789, 46789, 51000], itertools.count(52000))
    monkeypatch.setattr(ray_nodes, "free_port", lambda: next(repeats))
    cluster = ray_nodes.RayCluster(root=tmp_path)
    ports = [cluster.port, int(cluster.dashboard.rsplit(":", 1)[1])]
    ports += [int(flag.split("=")[1]) for flag in cluster._agent_ports() if "=" in flag]
    assert ports[:2] == [46789, 51000]
    assert len(ports) == len(set(ports)) == 8
