"""The sandbox's seccomp filter: classic BPF bytes for `bwrap --seccomp FD`.

The filter is built by Debian's `python3-seccomp` (the official libseccomp bindings,
libseccomp 2.5) run by the system interpreter, once per process, and exported as BPF. The
project's own interpreter (a venv) cannot import those bindings, and building BPF by hand is
what libseccomp exists to avoid; a 50 ms subprocess at set-up is the price.

Promised: every syscall below fails with EPERM (clone3 with ENOSYS, so that the C library
falls back to clone, whose flags a classic filter can inspect) for the sandboxed tree,
including as root; other architectures' syscall numbers kill the caller (libseccomp's
default for a foreign architecture). Everything else is allowed: the namespaces, uids and
rlimits do the rest. Not promised: that this list is complete for every kernel version.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess

# Syscalls a test program never needs: the kernel keyring (it is shared with the host),
# io_uring and bpf (large kernel attack surface), perf, userfaultfd, tracing other processes,
# mounts of any kind, namespace entry, SysV IPC and memfd (memory no rlimit counts: SysV
# segments even outlive every process), kernel modules and the like.
DENIED = (
    "keyctl add_key request_key io_uring_setup io_uring_enter io_uring_register bpf "
    "perf_event_open userfaultfd ptrace process_vm_readv process_vm_writev pidfd_getfd kcmp "
    "mount umount2 pivot_root move_mount open_tree fsopen fsconfig fsmount fspick "
    "mount_setattr setns shmget shmat msgget msgsnd semget semop semtimedop "
    "kexec_load kexec_file_load init_module finit_module delete_module reboot swapon swapoff "
    "acct quotactl syslog lookup_dcookie name_to_handle_at open_by_handle_at "
    "personality uselib vhangup memfd_create memfd_secret"
).split()
NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
ALLOWED_FAMILIES = (1, 2, 10)  # AF_UNIX, AF_INET, AF_INET6 (the net namespace isolates these)

_BUILD = r"""
import errno, json, sys
import seccomp as sc
spec = json.loads(sys.argv[1])
f = sc.SyscallFilter(defaction=sc.ALLOW)
eperm = sc.ERRNO(errno.EPERM)
for name in spec["denied"]:
    try:
        f.add_rule(eperm, name)
    except (RuntimeError, ValueError):  # not a syscall on this architecture
        pass
f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
for flag in spec["flags"]:
    for name in ("unshare", "clone"):
        f.add_rule(eperm, name, sc.Arg(0, sc.MASKED_EQ, flag, flag))
nofam = sc.ERRNO(errno.EAFNOSUPPORT)
top = max(spec["families"])
for name in ("socket", "socketpair"):
    f.add_rule(nofam, name, sc.Arg(0, sc.GT, top))
    for fam in range(top):
        if fam not in spec["families"]:
            f.add_rule(nofam, name, sc.Arg(0, sc.EQ, fam))
f.export_bpf(sys.stdout.buffer)
"""


class SeccompUnavailableError(RuntimeError):
    """The filter could not be built (no system python3 or no python3-seccomp)."""


@functools.lru_cache(maxsize=1)
def filter_bpf() -> bytes:
    """The filter as BPF bytes (cached). Raises `SeccompUnavailableError` naming the fix."""
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        raise SeccompUnavailableError("no system python3 to build the seccomp filter with")
    spec = {
        "denied": DENIED,
        "flags": list(NAMESPACE_FLAGS.values()),
        "families": list(ALLOWED_FAMILIES),
    }
    proc = subprocess.run(
        [python, "-I", "-c", _BUILD, json.dumps(spec)],
        capture_output=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )
    if proc.returncode != 0 or not proc.stdout or len(proc.stdout) % 8:
        why = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        raise SeccompUnavailableError(
            f"building the seccomp filter failed ({why[0][:200]}); install Debian's "
            "python3-seccomp (`apt-get install python3-seccomp`)"
        )
    return proc.stdout


def filter_fd(bpf: bytes) -> int:
    """A readable fd holding `bpf` for bwrap's `--seccomp` (it reads to EOF and closes)."""
    rfd, wfd = os.pipe()
    try:
        os.write(wfd, bpf)  # a few KB: fits the pipe buffer, never blocks
    finally:
        os.close(wfd)
    return rfd
