"""The Go kernels with Go-style (MoGo) playouts as ``random_playout``: specialise a compiled
template on this module to search Go with them (see :mod:`mctslab.games.go_playouts`)."""

from mctslab.games.go_kernels import *  # noqa: F403  (the whole contract, unchanged)
from mctslab.games.go_kernels import STATE_DTYPE  # noqa: F401  (not exported by *)
from mctslab.games.go_playouts import go_style_playout as random_playout  # noqa: F401
