"""Pool workers end with their parent (mctslab.harness.pools): a parent killed with SIGKILL, as a
session's end or ``kill -9`` does, leaves no worker playing on; a pool abandoned on an early stop
ends its workers and tasks in flight at once, so the process exits without waiting for them."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

from mctslab.harness.pools import _alive

PARENT = textwrap.dedent(
    """
    import os, sys, time
    from mctslab.harness.pools import process_pool

    def pid(_):
        time.sleep(0.2)
        return os.getpid()

    if __name__ == "__main__":
        pool = process_pool(2, sys.argv[1])
        pids = set(pool.map(pid, range(8)))
        print(" ".join(map(str, sorted(pids))), flush=True)
        time.sleep(600)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
@pytest.mark.parametrize("method", ["spawn", "forkserver", "fork"])
def test_workers_end_when_the_parent_is_killed(tmp_path, method):
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    parent = subprocess.Popen(
        [sys.executable, str(script), method], stdout=subprocess.PIPE, text=True
    )
    try:
        workers = [int(p) for p in parent.stdout.readline().split()]
        assert workers and all(_alive(p) for p in workers)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 20
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in workers if _alive(p)]
    finally:
        parent.kill()


ABANDONING = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from mctslab.harness.pools import abandon, process_pool

    def long_task(folder):
        (Path(folder) / str(os.getpid())).touch()
        time.sleep(600)

    if __name__ == "__main__":
        method, folder = sys.argv[1:]
        pool = process_pool(2, method)
        futures = [pool.submit(long_task, folder) for i in range(6)]
        while len(os.listdir(folder)) < 2:  # both workers are in a task
            time.sleep(0.05)
        abandon(pool)
        print("abandoned", flush=True)
    """
)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_an_abandoned_pool_lets_the_process_exit_at_once(tmp_path, method):
    """With ``shutdown(wait=False, cancel_futures=True)`` alone the script would exit only when its
    two 600 s tasks had finished."""
    script = tmp_path / "abandon.py"
    script.write_text(ABANDONING)
    began = tmp_path / "began"
    began.mkdir()
    t0 = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(script), method, str(began)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.split() == ["abandoned"], done.stderr
    assert time.monotonic() - t0 < 60
    workers = [int(p.name) for p in began.iterdir()]
    assert len(workers) == 2  # no task began after the two in flight
    deadline = time.monotonic() + 20
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in workers if _alive(p)]
