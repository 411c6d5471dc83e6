"""The filesystem jail of a run, set up by the runner inside its private mount namespace
before anything of the session starts. Standard library only (ctypes for the syscalls).

    the host           read-only (every mount, recursively)
    /tmp /var/tmp      private, empty, writable tmpfs (size-capped)
    /run /dev/shm      private, empty tmpfs: the host's sockets (Docker's, D-Bus) are not there
    caller's HOME      an empty tmpfs (its dotfiles hold credentials), read-only
    the run directory  the one writable place on the host's disks
    keep paths         (the CLI install, node, the hook's Python) bound back read-only where a
                       hidden directory covered them
    sh                 the setup's shell bound over the binary /bin/sh leads to (dash, bash, busybox)
    shells             probe check only: /bin/sh's and bash's binaries covered by the watcher
                       (shim.py), the real ones bound inside the run directory

Then every process of the session runs without privileges: as `nobody` when the runner is
the real root, else (a user namespace of an unprivileged caller) with no capabilities; both
with no_new_privs, so nothing in the session can remount, unmount or regain root.
"""

from __future__ import annotations

import ctypes
import os
import stat
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .contract import Jailed, JailSpec

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 0x1, 0x2, 0x4, 0x20, 0x1000, 0x4000
MS_PRIVATE = 1 << 18
AT_FDCWD, AT_RECURSIVE = -100, 0x8000
MOUNT_ATTR_RDONLY = 0x1
SYS_MOUNT_SETATTR = 442  # the same number on x86_64 and aarch64 (a post-5.1 syscall)
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_SET_PDEATHSIG = 38, 24, 1
LAST_CAP = 63
NOBODY = 65534
TMPFS_SIZE = "size=256m"  # a session's scratch space, in memory: bounded

_libc = ctypes.CDLL(None, use_errno=True)


class JailError(OSError):
    pass


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise JailError(err, f"{what}: {os.strerror(err)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None

    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")


def umount(target: str, flags: int) -> int:
    """umount2(2); its return value, for callers that tolerate a mount already gone."""
    return int(_libc.umount2(target.encode(), flags))


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def _read_only(path: str, read_only: bool, recursive: bool) -> None:
    """mount_setattr(2): one call makes a whole tree of mounts read-only (or writable)."""
    attr = _MountAttr(MOUNT_ATTR_RDONLY if read_only else 0, 0 if read_only else MOUNT_ATTR_RDONLY, 0, 0)
    ret = _libc.syscall(
        ctypes.c_long(SYS_MOUNT_SETATTR),
        ctypes.c_int(AT_FDCWD),
        path.encode(),
        ctypes.c_uint(AT_RECURSIVE if recursive else 0),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
    )
    _check(ret, f"mount_setattr {path}")


def _is_real_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def enter(spec: JailSpec) -> Jailed:
    """Build the jail `spec` describes ({"writable": the run directory, "owned": what in it the
    session writes, "keep", "hide"}); returns what it is, for the evidence."""
    writable = [os.path.realpath(p) for p in spec["writable"]]
    keep = [os.path.realpath(p) for p in spec["keep"] if os.path.exists(p)]
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here propagates to the host
    # Open what must stay reachable before anything covers it; bind it back from the fd.
    fds = {p: os.open(p, os.O_PATH | os.O_DIRECTORY) for p in dict.fromkeys(writable + keep)}
    hidden = []
    scratch = {"/tmp": "mode=1777", "/var/tmp": "mode=1777", "/dev/shm": "mode=1777", "/run": "mode=755"}
    for path in spec["hide"]:
        if not _is_real_dir(path):  # /var/run is a link to /run; a missing dir hides nothing
            continue
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"{scratch.get(path, 'mode=755')},{TMPFS_SIZE}")
        hidden.append(path)
    for path, fd in fds.items():
        if not os.path.isdir(path):
            os.makedirs(path, mode=0o755)
        mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        os.close(fd)
    sh = spec.get("sh")
    if sh:  # the setup's shell where /bin/sh leads (the binary: /bin is a link on most hosts)
        mount(sh["source"], sh["target"], None, MS_BIND)
    st = os.stat("/bin/sh")
    for shell, saved in spec.get("shells", {}).items():  # probe check: the shells, watched
        mount(shell, saved, None, MS_BIND)  # the real binary, where the watcher finds it
        mount(spec["wrapper"], shell, None, MS_BIND)  # the watcher in its place
    _read_only("/", True, recursive=True)
    for path in hidden:  # scratch space stays writable; a covered HOME does not
        if path in scratch:
            _read_only(path, False, recursive=False)
    for path in writable:
        _read_only(path, False, recursive=True)
    user = "nobody" if os.getuid() == 0 and _mapped(NOBODY) else "no capabilities"
    if user == "nobody":  # the session writes only where it is given its own directories
        for path in writable:
            os.chmod(path, 0o711)
        for path in spec["owned"]:
            _chown_tree(path, NOBODY)
    return {
        "filesystem": "read-only host, private /tmp and /run, writable run directory",
        "user": user,
        "hidden": hidden,
        "sh": {"dev": st.st_dev, "ino": st.st_ino},
    }


def _mapped(uid: int) -> bool:
    """True when `uid` exists in this user namespace (always, for the real root)."""
    try:
        with open("/proc/self/uid_map") as f:
            for line in f:
                inside, _, count = (int(x) for x in line.split())
                if inside <= uid < inside + count:
                    return True
    except OSError:
        pass
    return False


def _chown_tree(root: str, uid: int) -> None:
    os.chown(root, uid, uid)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.chown(os.path.join(dirpath, name), uid, uid, follow_symlinks=False)


def unprivileged(user: str) -> Callable[[], None]:
    """A preexec function for every process the runner starts for the session."""

    def drop() -> None:
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        if user == "nobody":
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)  # from root to another uid: every capability goes too
            return
        for cap in range(LAST_CAP + 1):
            _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the kernel's last cap
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable (two words each): none
        _check(_libc.capset(header, data), "capset")

    return drop


def die_with_parent(signum: int, parent: int | None = None) -> None:
    """Be sent `signum` when the process that started this one ends, however it ends (in a
    new child: `parent`, that process's pid, closes the race with an early death)."""
    _libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os._exit(1)
