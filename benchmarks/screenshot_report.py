"""Render a prm-report page in headless Chromium and save a PNG (the README's screenshot).

    .venv/bin/python benchmarks/screenshot_report.py runs/builtin_math           # dataset dir
    .venv/bin/python benchmarks/screenshot_report.py /tmp/x/report.html --out /tmp/x.png

A dataset directory gets its report written first (`<dir>/report.html`). Chromium is
Debian's `chromium` package; the flags keep it offline and quiet, and `--no-sandbox` is
needed when running as root (containers). The page itself allows no scripts or fetches.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLAGS = [
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def chromium() -> str:
    """Path of the Chromium binary; raises FileNotFoundError naming the fix."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise FileNotFoundError("no chromium on PATH; install it: apt-get install -y chromium")


def screenshot(page: Path, out: Path, width: int = 1280, height: int = 2400) -> Path:
    """Screenshot of `page` at `width` x `height` CSS pixels, written to `out`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    flags = [*FLAGS, "--no-sandbox"] if os.geteuid() == 0 else list(FLAGS)
    with tempfile.TemporaryDirectory(prefix="prm-chromium-") as profile:
        cmd = [
            chromium(), *flags, f"--user-data-dir={profile}",
            f"--window-size={width},{height}", f"--screenshot={out.resolve()}",
            page.resolve().as_uri(),
        ]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"chromium failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target", type=Path, help="a dataset directory or a report .html file")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "report.png")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=2400)
    args = ap.parse_args(argv)
    page = args.target
    if page.is_dir():
        sys.path.insert(0, str(ROOT))
        from pipelines.report.app import write_report

        page = write_report(page)
    print(screenshot(page, args.out, args.width, args.height))
    return 0


if __name__ == "__main__":
    sys.exit(main())
