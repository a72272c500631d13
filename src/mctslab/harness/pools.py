"""Process pools whose workers end with the process that made them.

A :class:`concurrent.futures.ProcessPoolExecutor` worker outlives its parent when the parent is
killed (``kill``, ``kill -9``, a session's end): it goes on playing games or self-play nobody
will read, on cores that a resumed run or a timed match then shares. Each worker of
:func:`process_pool` therefore

- asks the kernel for ``SIGKILL`` when its parent process dies (Linux
  ``prctl(PR_SET_PDEATHSIG)``, prctl(2)): with the ``spawn`` and ``fork`` start methods the
  parent is the pool's owner, so the worker ends at once;
- watches the owner from a daemon thread (:data:`WATCH_SECONDS`) and exits when it is gone: with
  ``forkserver`` the parent is the fork server, which stays alive while any worker does (each
  worker holds the write end of the server's "alive" pipe), so only the owner's pid tells.
"""

from __future__ import annotations

import concurrent.futures as cf
import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time

#: prctl(2) option: the signal a process gets when its parent ends
PR_SET_PDEATHSIG = 1
#: seconds between a worker's checks that the pool's owner still runs
WATCH_SECONDS = 0.5


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:  # no /proc: trust kill
        return True


def _watch(owner: int) -> None:
    while _alive(owner):
        time.sleep(WATCH_SECONDS)
    os._exit(1)


def _die_with_owner(owner: int) -> None:
    """Worker initializer: end with the pool's owner ``owner`` (module docstring)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    threading.Thread(target=_watch, args=(owner,), daemon=True, name="owner-watch").start()


def process_pool(workers: int, method: str | None = None) -> cf.ProcessPoolExecutor:
    """A pool of ``workers`` processes started by ``method`` (``"spawn"``, ``"forkserver"``,
    ``"fork"``; None for the platform's default) that end with this process (module
    docstring)."""
    return cf.ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context(method),
        initializer=_die_with_owner,
        initargs=(os.getpid(),),
    )


def abandon(pool: cf.ProcessPoolExecutor) -> None:
    """Shut ``pool`` down now: cancel the tasks not yet begun and end the workers, dropping the
    tasks in flight. ``shutdown(wait=False)`` alone lets a running task play on, and the
    interpreter's exit then waits for it (a stopped match or training run hung until its games in
    flight had finished). Python 3.14's ``terminate_workers`` does this; before it, the pool's
    process table is read (the attribute 3.14 itself uses)."""
    if hasattr(pool, "terminate_workers"):  # Python >= 3.14
        pool.terminate_workers()
        return
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for w in workers:
        if w.is_alive():
            w.terminate()
