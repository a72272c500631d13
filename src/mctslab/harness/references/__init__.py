"""Same-run references for the speed benchmarks: speed targets are ratios against these.

* :func:`c_playouts` — careful C random playouts (NoGo, Hex), shipped as C source in
  ``references/c/`` and compiled on first use (:mod:`mctslab.harness.references.native`).
* :func:`openspiel_search` — OpenSpiel's C++ ``MCTSBot``
(:mod:`mctslab.harness.references.openspiel`),
  with ``pip install 'mctslab[bench]'``.
"""

from mctslab.harness.references.native import (
    CompilerNotFoundError,
    ReferenceBuildError,
    c_playouts,
    selfcheck,
)
from mctslab.harness.references.openspiel import (
    SEARCH_NODE_BYTES,
    OpenSpielNotInstalledError,
    openspiel_search,
)

__all__ = [
    "SEARCH_NODE_BYTES",
    "CompilerNotFoundError",
    "OpenSpielNotInstalledError",
    "ReferenceBuildError",
    "c_playouts",
    "openspiel_search",
    "selfcheck",
]
