"""Specialised templates compile once per source tree and load from the on-disk cache."""

import os
import subprocess
import sys
from pathlib import Path

import mctslab
from mctslab.games import generic_template
from mctslab.kernels import cache, codegen


def test_specialize_is_memoised_and_writes_a_generated_module():
    game = mctslab.load_game("nim")
    a = codegen.specialize(generic_template, game.kernels)
    b = codegen.specialize(generic_template, game.kernels)
    assert a is b
    path = Path(a.__file__)
    assert path.parent == cache.compiled_dir() / "generated"
    assert f"import {game.kernels.__name__} as game" in path.read_text()


def test_numba_cache_dir_is_keyed_by_the_kernel_sources():
    assert os.environ["NUMBA_CACHE_DIR"].startswith(str(cache.compiled_dir()))
    assert len(cache.kernel_source_hash()) == 16


_CHILD = """
import time, numpy as np
t = time.perf_counter()
import mctslab
from mctslab.kernels import codegen
from mctslab.games import generic_template
from mctslab.kernels.rng import seed_state
g = mctslab.load_game("nim(n=20)")
k = codegen.specialize(generic_template, g.kernels)
moves = np.zeros(64, np.int32); out = np.zeros(2); tot = np.zeros(2)
k.run_playouts(g.consts, g.new_initial_state().array, 10, seed_state(1), moves, out, tot)
print(time.perf_counter() - t)
"""


def test_second_process_loads_compiled_code_from_disk(tmp_path):
    env = {**os.environ, "MCTSLAB_CACHE_DIR": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    run = [sys.executable, "-c", _CHILD]
    cold = float(subprocess.run(run, env=env, capture_output=True, check=True, text=True).stdout)
    warm = float(subprocess.run(run, env=env, capture_output=True, check=True, text=True).stdout)
    assert list(tmp_path.rglob("*.nbi")), "no Numba cache index was written"
    assert warm < cold
