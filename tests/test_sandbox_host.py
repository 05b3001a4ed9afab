"""Host-side attacks and honest programs: what a sandboxed program must not reach, and what
it must still be able to do.

Containment cases return the right answer only if the attempt failed (`guarded`): a pass
proves containment, and the same program with the attempt succeeding would return a wrong
answer. Honest programs must pass. The verdict-forging families live in
test_sandbox_attacks.py; all programs here run once, in parallel, in a module fixture.
"""

from __future__ import annotations

import pytest

from labeling.schema import Problem
from tests.conftest import needs_sandbox
from verifiers.sandbox.runner import Sandbox, SandboxConfig

pytestmark = [pytest.mark.sandbox, needs_sandbox]

CONFIG = SandboxConfig(timeout_s=8, cpu_s=4, memory_mb=256, max_processes=16, tmp_mb=8)
DOUBLE = Problem("double", "code", "attack", "", tests=("assert f(2) == 4", "assert f(3) == 6"))


def guarded(attack: str) -> str:
    """A correct `f` only if `attack` raised (the attempt failed)."""
    body = "\n".join("        " + line for line in attack.strip().splitlines())
    return (
        "import ctypes, os, sys\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        f"def f(x):\n    try:\n{body}\n    except BaseException:\n        return x * 2\n"
        "    return 'ESCAPED'\n"
    )


def ok(call: str) -> str:
    """An attack line that raises unless the C call returned >= 0 (succeeded)."""
    return f"assert {call} >= 0"


CTYPES_CONTAINED = {
    "write_test_process_mem": "open(f'/proc/{os.getppid()}/mem', 'r+b').write(b'x')",
    "read_test_process_mem": "open(f'/proc/{os.getppid()}/mem', 'rb').read(1)",
    "ptrace_test_process": ok("libc.ptrace(16, os.getppid(), 0, 0)"),
    "process_vm_writev_test_process": ok(
        "libc.process_vm_writev(os.getppid(), None, 0, None, 0, 0)"
    ),
    "pidfd_getfd_result_fd": "fd = os.pidfd_open(os.getppid())\n"
    + ok("libc.syscall(438, fd, 3, 0)"),
    "open_test_process_fds": "os.listdir(f'/proc/{os.getppid()}/fd')",
    "signal_test_process": "import signal\nos.kill(os.getppid(), signal.SIGSTOP)",
}

# Host side: keyring, namespaces, IPC, memory, kernel interfaces.
HOST = {
    "keyring_read_session": ok("libc.syscall(250, 0, -3, 0)"),  # KEYCTL_GET_KEYRING_ID
    "keyring_plant_key": ok("libc.syscall(248, b'user', b'prm-redteam', b'x', 1, -3)"),
    "keyring_request_key": ok("libc.syscall(249, b'user', b'prm-redteam', None, -3)"),
    "unshare_user_namespace": ok("libc.unshare(0x10000000)"),
    "clone_user_namespace": "r = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)\n"
    "if r == 0:\n    os._exit(0)\n" + ok("r"),
    "unshare_then_tmpfs_mount": ok("libc.unshare(0x10000000 | 0x20000)")
    + "\n"
    + ok("libc.mount(b'none', b'/tmp', b'tmpfs', 0, b'size=2g')"),
    "sysv_shm_600mb": ok("libc.shmget(0, 600 << 20, 0o1600)"),
    "sysv_msg_queue": ok("libc.msgget(0, 0o1600)"),
    "sysv_semaphores": ok("libc.semget(0, 1, 0o1600)"),
    "memfd_outside_rlimits": ok("libc.syscall(319, b'm', 0)"),
    "io_uring_setup": ok("libc.syscall(425, 8, ctypes.create_string_buffer(120))"),
    "bpf_program": ok("libc.syscall(321, 0, ctypes.create_string_buffer(64), 64)"),
    "perf_event_open": ok("libc.syscall(298, ctypes.create_string_buffer(128), 0, -1, -1, 0)"),
    "userfaultfd": ok("libc.syscall(323, 0)"),
    "vsock_socket": "import socket\nsocket.socket(40, socket.SOCK_STREAM)",
    "netlink_socket": "import socket\nsocket.socket(16, socket.SOCK_RAW, 0)",
    "alg_socket": "import socket\nsocket.socket(38, socket.SOCK_SEQPACKET)",
    "shm_tmpfs_is_capped": "open('/dev/shm/big', 'wb').write(b'x' * (64 << 20))",
}

MEMORY_TOTAL = (
    "import resource\ndef f(x):\n    space = resource.getrlimit(resource.RLIMIT_AS)[0]\n"
    "    procs = resource.getrlimit(resource.RLIMIT_NPROC)[0]\n"
    "    ram = int(open('/proc/meminfo').read().split()[1]) * 1024\n"
    "    return x * 2 if space * procs <= ram // 2 else 'ESCAPED'\n"
)
MEMORY_FORKS = (
    "import os\ndef grab():\n    try:\n        b = bytearray(300 << 20)\n"
    "        b[::4096] = b'x' * len(b[::4096])\n        return 0\n    except MemoryError:\n"
    "        return 1\ndef f(x):\n    kids = []\n    for _ in range(8):\n        pid = os.fork()\n"
    "        if pid == 0:\n            os._exit(grab())\n        kids.append(pid)\n"
    "    held = sum(os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) == 0 for p in kids)\n"
    "    return x * 2 if held == 0 else 'ESCAPED'\n"
)

# Honest programs that must keep passing (problem, code).
SORT_IN_PLACE = Problem(
    "inplace", "code", "honest", "", tests=("a = [3, 1, 2]\nsort_it(a)\nassert a == [1, 2, 3]",)
)
TREE = Problem(
    "tree",
    "code",
    "honest",
    "",
    tests=("assert depth(root) == 3",),
    test_setup="root = Node(1)\nroot.left = Node(2)\nroot.left.left = Node(3)",
)
RAISES = Problem(
    "raises",
    "code",
    "honest",
    "",
    tests=("try:\n    f(-1)\n    ok = False\nexcept ValueError:\n    ok = True\nassert ok",),
)
COUNTS = Problem("counts", "code", "honest", "", tests=("assert f('aab') == {'a': 2, 'b': 1}",))
GEN = Problem("gen", "code", "honest", "", tests=("assert list(f(3)) == [0, 1, 2]",))
POINT = Problem("point", "code", "honest", "", tests=("assert f(2) == (2, 4)",))
HONEST = {
    "pool_map": (
        DOUBLE,
        "from multiprocessing import Pool\ndef f(x):\n    with Pool(2) as p:\n"
        "        return sum(p.map(int, [x, x]))\n",
    ),
    "process_pool_executor": (
        DOUBLE,
        "from concurrent.futures import ProcessPoolExecutor\ndef f(x):\n"
        "    with ProcessPoolExecutor(2) as ex:\n        return sum(ex.map(abs, [x, x]))\n",
    ),
    "threads": (
        DOUBLE,
        "import threading\ndef f(x):\n    out = []\n"
        "    ts = [threading.Thread(target=out.append, args=(x,)) for _ in range(4)]\n"
        "    [t.start() for t in ts]\n    [t.join() for t in ts]\n    return sum(out) // 2\n",
    ),
    "subprocess_interpreter": (
        DOUBLE,
        "import subprocess, sys\ndef f(x):\n    r = subprocess.run([sys.executable, '-c', "
        "f'print({x} * 2)'], capture_output=True, text=True, check=True)\n"
        "    return int(r.stdout)\n",
    ),
    "posix_shared_memory": (
        DOUBLE,
        "from multiprocessing import shared_memory\ndef f(x):\n"
        "    m = shared_memory.SharedMemory(create=True, size=64)\n    m.buf[0] = 2 * x\n"
        "    v = m.buf[0]\n    m.close()\n    m.unlink()\n    return v\n",
    ),
    "deep_recursion": (
        DOUBLE,
        "import sys\nsys.setrecursionlimit(20000)\ndef r(n):\n"
        "    return 0 if n == 0 else 1 + r(n - 1)\ndef f(x):\n    return r(5000) - 5000 + 2 * x\n",
    ),
    "large_output": (DOUBLE, "print('y' * (4 << 20))\ndef f(x):\n    print(x)\n    return 2 * x\n"),
    "tmp_writes": (
        DOUBLE,
        "def f(x):\n    open('/tmp/n', 'w').write(str(2 * x))\n"
        "    return int(open('/tmp/n').read())\n",
    ),
    "mutates_argument": (SORT_IN_PLACE, "def sort_it(v):\n    v.sort()\n"),
    "tree_from_setup": (
        TREE,
        "class Node:\n    def __init__(self, v):\n"
        "        self.v, self.left, self.right = v, None, None\ndef depth(n):\n"
        "    return 0 if n is None else 1 + max(depth(n.left), depth(n.right))\n",
    ),
    "raises_expected_error": (RAISES, "def f(x):\n    if x < 0:\n        raise ValueError(x)\n"),
    "counter_result": (
        COUNTS,
        "from collections import Counter\ndef f(s):\n    return Counter(s)\n",
    ),
    "generator_result": (GEN, "def f(n):\n    yield from range(n)\n"),
    "namedtuple_result": (
        POINT,
        "from collections import namedtuple\nP = namedtuple('P', 'a b')\n"
        "def f(x):\n    return P(x, 2 * x)\n",
    ),
}


@pytest.fixture(scope="module")
def outcomes() -> dict[str, object]:
    cases: dict[str, tuple[Problem, str, bool]] = {}
    for family in (CTYPES_CONTAINED, HOST):
        cases.update({n: (DOUBLE, guarded(a), True) for n, a in family.items()})
    cases["memory_many_processes"] = (DOUBLE, MEMORY_FORKS, True)
    cases.update({n: (p, c, True) for n, (p, c) in HONEST.items()})
    cases["kill_own_group"] = (
        DOUBLE,
        "import os, signal\ndef f(x):\n    os.killpg(0, signal.SIGKILL)\n",
        False,
    )
    names = list(cases)
    results = Sandbox(CONFIG).run_many([cases[n][:2] for n in names], workers=4)
    default = Sandbox(SandboxConfig()).run(DOUBLE, MEMORY_TOTAL)
    return {"results": dict(zip(names, results, strict=True)), "cases": cases, "total": default}


def test_each_family_has_ten_cases():
    assert len(HOST) >= 10 and len(HONEST) >= 10 and len(CTYPES_CONTAINED) >= 5


@pytest.mark.parametrize("name", sorted([*CTYPES_CONTAINED, *HOST, "memory_many_processes"]))
def test_contained(outcomes, name):
    result = outcomes["results"][name]
    assert result.passed, f"{name}: {result}"


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_program_passes(outcomes, name):
    result = outcomes["results"][name]
    assert result.passed, f"{name}: {result}"


def test_memory_of_the_whole_tree_is_bounded_by_default(outcomes):
    assert outcomes["total"].passed, outcomes["total"]


def test_killing_its_own_group_is_a_crash_not_a_timeout(outcomes):
    result = outcomes["results"]["kill_own_group"]
    assert not result.passed and not result.timed_out
    assert result.killed_by_signal == 9 and "crashed" in result.error
