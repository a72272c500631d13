"""Pool workers end with their parent (mctslab.harness.pools): a parent killed with SIGKILL, as a
session's end or ``kill -9`` does, leaves no worker playing on."""

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
