"""Hostile programs against the sandbox: each must be contained and get the right result.

Containment cases are written so that the solution is correct only if the attack failed
(`f` returns x * 2 after the attack raised, something else if it succeeded): a pass proves
containment. Cheating cases return wrong answers while trying to look like a pass: a pass
would be a harness bug. All programs run once, in parallel, in a module fixture.
The attack families of issue 11 (forged equality, shared names and data, ctypes, host side)
and honest programs continue in test_sandbox_attacks.py and test_sandbox_host.py (this
module would pass 400 lines with them).
"""

from __future__ import annotations

import os
import socket
import sys
import time
import uuid
from pathlib import Path

import pytest

from labeling.schema import Problem
from tests.conftest import needs_sandbox
from verifiers.sandbox.runner import Sandbox, SandboxConfig

pytestmark = [pytest.mark.sandbox, needs_sandbox]

CONFIG = SandboxConfig(
    timeout_s=4,
    cpu_s=2,
    memory_mb=256,
    max_processes=16,
    tmp_mb=8,
    max_file_mb=4,
    output_bytes=2048,
)
DOUBLE = Problem("double", "code", "redteam", "", tests=("assert f(2) == 4", "assert f(3) == 6"))
TRUTHY = Problem("truthy", "code", "redteam", "", tests=("assert g(2)", "assert not g(3)"))
MARKER = f"prm-redteam-{uuid.uuid4().hex[:12]}"
SECRET = f"secret-{uuid.uuid4().hex}"
HOST_FILE = Path(f"/tmp/{MARKER}.sentinel")


def guarded(attack: str) -> str:
    """A correct `f` only if `attack` raised (or otherwise did not get through)."""
    body = "\n".join("        " + line for line in attack.strip().splitlines())
    return (
        "import os, sys\ndef f(x):\n    try:\n"
        f"{body}\n    except BaseException:\n        return x * 2\n    return 'ESCAPED'\n"
    )


def holds(condition: str, setup: str = "") -> str:
    """A correct `f` only if `condition` is true inside the sandbox."""
    lines = "\n".join("    " + line for line in setup.strip().splitlines())
    return f"import os, sys\ndef f(x):\n{lines}\n    return x * 2 if ({condition}) else 'ESCAPED'\n"


ROOT_VIEW = (
    "set(os.listdir('/root')) <= {'.pyenv'}"
    if sys.base_prefix.startswith("/root/.pyenv/")
    else "not os.path.exists('/root') or os.listdir('/root') == []"
)
OK = "def f(x):\n    return x * 2\n"
WRONG = "def f(x):\n    return x + 100\n"

# name -> (problem, code, expect_pass); expect_pass True means "contained and still correct".
CASES: dict[str, tuple[Problem, str, bool]] = {
    # --- files --------------------------------------------------------------------------
    "read_etc_shadow": (DOUBLE, guarded("open('/etc/shadow').read()"), True),
    "read_etc_passwd": (DOUBLE, guarded("open('/etc/passwd').read()"), True),
    "read_root_home": (DOUBLE, guarded("open('/root/.bashrc').read()"), True),
    "list_root_only_python": (DOUBLE, holds(ROOT_VIEW), True),
    "read_project_files": (DOUBLE, guarded("os.listdir('/work')"), True),
    "read_venv": (DOUBLE, guarded(f"os.listdir({sys.prefix!r})"), True),
    "read_this_test_file": (DOUBLE, guarded(f"open({__file__!r}).read()"), True),
    "site_packages_hidden": (DOUBLE, guarded("import numpy"), True),
    "write_outside_tmp": (DOUBLE, guarded("open('/usr/pwned', 'w').write('x')"), True),
    "write_root_dir": (DOUBLE, guarded("open('/pwned', 'w').write('x')"), True),
    "delete_stdlib": (DOUBLE, guarded("import shutil, os\nos.remove(os.__file__)"), True),
    "delete_host_file": (DOUBLE, guarded(f"os.remove({str(HOST_FILE)!r})"), True),
    "fill_disk": (
        DOUBLE,
        guarded("for i in range(10000):\n    open(f'/tmp/f{i}', 'wb').write(b'x' * (1 << 20))"),
        True,
    ),
    "huge_single_file": (DOUBLE, guarded("open('/tmp/big', 'wb').write(b'x' * (64 << 20))"), True),
    "symlink_escape": (
        DOUBLE,
        guarded("os.symlink('/etc/shadow', '/tmp/s')\nopen('/tmp/s').read()"),
        True,
    ),
    "proc_root_escape": (DOUBLE, guarded("open('/proc/1/root/etc/shadow').read()"), True),
    "proc_host_pids": (
        DOUBLE,
        holds("len([p for p in os.listdir('/proc') if p.isdigit()]) < 6"),
        True,
    ),
    "proc_environ_of_init": (DOUBLE, guarded("open('/proc/1/environ').read()"), True),
    "dev_mem": (DOUBLE, guarded("open('/dev/mem', 'rb').read(1)"), True),
    # --- environment and identity ----------------------------------------------------------
    "env_secret": (
        DOUBLE,
        holds(f"{SECRET!r} not in str(os.environ) and 'PRM_REDTEAM_SECRET' not in os.environ"),
        True,
    ),
    "become_root": (DOUBLE, guarded("os.setuid(0)"), True),
    "ptrace_init": (
        DOUBLE,
        holds("libc.ptrace(16, 1, 0, 0) == -1", "import ctypes\nlibc = ctypes.CDLL(None)"),
        True,
    ),
    "ctypes_mount": (
        DOUBLE,
        guarded(
            "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "assert libc.mount(b'tmpfs', b'/usr', b'tmpfs', 0, None) == 0"
        ),
        True,
    ),
    # --- network -----------------------------------------------------------------------------
    "network_connect_host": (DOUBLE, "", True),  # filled in by the fixture (needs a port)
    "network_connect_outside": (
        DOUBLE,
        guarded("import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=1)"),
        True,
    ),
    "dns_lookup": (DOUBLE, guarded("import socket\nsocket.getaddrinfo('example.com', 80)"), True),
    # --- processes and signals ------------------------------------------------------------------
    "kill_parent": (DOUBLE, guarded("import signal\nos.kill(os.getppid(), signal.SIGKILL)"), True),
    "kill_init": (DOUBLE, guarded("import signal\nos.kill(1, signal.SIGKILL)"), True),
    # The tests run under another uid: kill(-1) reaches only the program's own processes.
    "kill_everything": (DOUBLE, "import os, signal\nos.kill(-1, signal.SIGKILL)\n" + OK, True),
    "fork_bomb": (
        DOUBLE,
        "import os\nif os.fork() == 0:\n    while True:\n        try:\n            os.fork()\n"
        "        except OSError:\n            pass\n" + OK,
        True,
    ),
    "daemon_outlives": (
        DOUBLE,
        "import os\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
        f"        os.execv('/bin/sleep', [{MARKER!r}, '30'])\n    os._exit(0)\n" + OK,
        True,
    ),
    "busy_threads": (
        DOUBLE,
        "import threading\ndef spin():\n    while True:\n        pass\n"
        "for _ in range(8):\n    threading.Thread(target=spin, daemon=False).start()\n" + OK,
        True,
    ),
    "stop_self": (DOUBLE, "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)\n" + OK, False),
    "segfault": (DOUBLE, "import ctypes\nctypes.string_at(0)\n" + OK, False),
    "deep_recursion_crash": (
        DOUBLE,
        "import sys\nsys.setrecursionlimit(10**7)\ndef r(n):\n    return r(n + 1)\n"
        "def f(x):\n    return r(0)\n",
        False,
    ),
    # --- time, memory, output -----------------------------------------------------------------
    "infinite_loop_import": (DOUBLE, "while True:\n    pass\n" + OK, False),
    "infinite_loop_in_test": (DOUBLE, "def f(x):\n    while True:\n        pass\n", False),
    "sleep_forever": (DOUBLE, "import time\ntime.sleep(1000)\n" + OK, False),
    "memory_bomb": (DOUBLE, "def f(x):\n    return len(bytearray(1 << 34))\n", False),
    "memory_creep": (
        DOUBLE,
        "def f(x):\n    a = []\n    while True:\n        a.append('x' * 4096)\n",
        False,
    ),
    "huge_output": (
        DOUBLE,
        "import sys\nfor _ in range(200):\n    sys.stdout.write('x' * 100000)\n" + OK,
        True,
    ),
    "endless_output": (DOUBLE, "while True:\n    print('spam' * 1000)\n" + OK, False),
    "stderr_flood": (
        DOUBLE,
        "import sys\nfor _ in range(200):\n    sys.stderr.write('e' * 100000)\n" + OK,
        True,
    ),
    # --- cheating -----------------------------------------------------------------------------
    "sys_exit_before_tests": (DOUBLE, "import sys\nsys.exit(0)\n" + WRONG, False),
    "os_exit_before_tests": (DOUBLE, "import os\nos._exit(0)\n" + WRONG, False),
    "os_exit_in_test": (DOUBLE, "import os\ndef f(x):\n    os._exit(0)\n", False),
    "system_exit_in_test": (DOUBLE, "def f(x):\n    raise SystemExit(0)\n", False),
    "keyboard_interrupt_in_test": (DOUBLE, "def f(x):\n    raise KeyboardInterrupt\n", False),
    "always_equal": (
        DOUBLE,
        "class E:\n    def __eq__(self, o):\n        return True\ndef f(x):\n    return E()\n",
        False,
    ),
    "int_subclass_equal": (
        DOUBLE,
        "class I(int):\n    def __eq__(self, o):\n        return True\n"
        "    __hash__ = int.__hash__\ndef f(x):\n    return I(0)\n",
        False,
    ),
    "slot_wrapper_equal": (
        DOUBLE,
        "class I(int):\n    __eq__ = int.__ne__\ndef f(x):\n    return I(0)\n",
        False,
    ),
    "patched_stdlib_eq": (
        DOUBLE,
        "import collections\ncollections.Counter.__eq__ = lambda s, o: True\n"
        "def f(x):\n    return collections.Counter()\n",
        False,
    ),
    "truthy_object": (
        TRUTHY,
        "class T:\n    n = 0\n    def __bool__(self):\n        T.n += 1\n"
        "        return T.n % 2 == 1\ndef g(x):\n    return T()\n",
        False,
    ),
    "fake_pass_marker": (
        DOUBLE,
        "print('ALL TESTS PASSED')\nprint('done\\tok')\n" + WRONG,
        False,
    ),
    "forge_result_pipe": (
        DOUBLE,
        "import os\nfor fd in range(3, 64):\n    for i in range(2):\n        try:\n"
        "            os.write(fd, f'x\\ttest\\t{i}\\tpass\\t\\n'.encode())\n"
        "        except OSError:\n            pass\n" + WRONG,
        False,
    ),
    "redirect_result_pipe": (
        DOUBLE,
        "import os\nfor fd in range(3, 64):\n    try:\n        os.dup2(1, fd)\n"
        "    except OSError:\n        pass\n" + OK,
        False,
    ),
    "close_all_fds": (DOUBLE, "import os\nos.closerange(0, 1024)\n" + OK, False),
    "patch_builtins": (
        DOUBLE,
        "import builtins\nbuiltins.AssertionError = ZeroDivisionError\n"
        "builtins.isinstance = lambda *a: True\nbuiltins.dict = lambda *a: {}\n" + WRONG,
        False,
    ),
    "patch_harness_module": (
        DOUBLE,
        "import __main__, sys\n__main__.Untrusted = Exception\n"
        "__main__._CMP_METHODS = ()\n"
        "class E:\n    def __eq__(self, o):\n        return True\ndef f(x):\n    return E()\n",
        False,
    ),
    "settrace_skip_asserts": (
        DOUBLE,
        "import sys\ndef tracer(frame, event, arg):\n    return tracer\n"
        "sys.settrace(tracer)\n" + WRONG,
        False,
    ),
    "null_bytes_source": (DOUBLE, OK + "\x00\n", False),
    "unprintable_exception": (
        DOUBLE,
        "class X(Exception):\n    def __str__(self):\n        raise RuntimeError\n"
        "def f(x):\n    raise X()\n",
        False,
    ),
    "input_reads_eof": (DOUBLE, "n = input()\n" + OK, False),
    "subprocess_shell": (
        DOUBLE,
        guarded("import subprocess\nsubprocess.run(['cat', '/etc/shadow'], check=True)"),
        True,
    ),
}


@pytest.fixture(scope="module")
def outcomes() -> dict[str, object]:
    HOST_FILE.write_text("keep me")
    os.environ["PRM_REDTEAM_SECRET"] = SECRET  # must not reach the sandbox
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    cases = dict(CASES)
    cases["network_connect_host"] = (
        DOUBLE,
        guarded(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1)"),
        True,
    )
    try:
        sandbox = Sandbox(CONFIG)
        names = list(cases)
        start = time.monotonic()
        results = sandbox.run_many([(cases[n][0], cases[n][1]) for n in names], workers=4)
        elapsed = time.monotonic() - start
        after = sandbox.run(DOUBLE, OK)  # the job continues after all of the above
    finally:
        listener.close()
        os.environ.pop("PRM_REDTEAM_SECRET", None)
    strays = _strays_after(deadline_s=5.0)
    host_file = HOST_FILE.read_text() if HOST_FILE.exists() else None
    HOST_FILE.unlink(missing_ok=True)
    return {
        "results": dict(zip(names, results, strict=True)),
        "cases": cases,
        "after": after,
        "strays": strays,
        "host_file": host_file,
        "elapsed": elapsed,
    }


def _strays_after(deadline_s: float) -> list[str]:
    """Processes still carrying the marker, polled until none is left or the deadline passes
    (a killed tree takes a moment to be reaped)."""
    end = time.monotonic() + deadline_s
    while True:
        strays = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline_has(p, MARKER)]
        if not strays or time.monotonic() > end:
            return strays
        time.sleep(0.05)


def _cmdline_has(pid: str, marker: str) -> bool:
    try:
        return marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_program(outcomes, name):
    result = outcomes["results"][name]
    expect = outcomes["cases"][name][2]
    assert result.passed is expect, f"{name}: {result}"
    assert result.isolation == "bwrap"
    assert len(result.stdout) <= CONFIG.output_bytes + 20
    assert len(result.stderr) <= CONFIG.output_bytes + 20
    assert result.duration_s < CONFIG.timeout_s + 2


def test_specific_verdicts(outcomes):
    r = outcomes["results"]
    for name in (
        "infinite_loop_import",
        "infinite_loop_in_test",
        "sleep_forever",
        "stop_self",
        "endless_output",
    ):
        assert r[name].timed_out, name
    assert r["memory_bomb"].memory_exceeded and r["memory_creep"].memory_exceeded
    assert r["always_equal"].test_status == ("untrusted", "untrusted")
    assert r["segfault"].killed_by_signal == 11
    assert r["huge_output"].stdout.endswith("[... truncated]")
    assert r["sys_exit_before_tests"].tests_passed == 0
    assert "SystemExit" in r["system_exit_in_test"].error


def test_host_untouched_and_job_continues(outcomes):
    assert outcomes["host_file"] == "keep me"
    assert outcomes["strays"] == [], "a daemon outlived its sandbox"
    assert outcomes["after"].passed
    assert outcomes["elapsed"] < 90
