"""HTP, the dialect of GTP that HexGui speaks (the HexGui/MoHex "Hex Text Protocol"), where it
differs from GTP v2 (Farnebäck, "GTP — Go Text Protocol, version 2.0", draft 2, 2002).

- ``boardsize N`` or ``boardsize N N`` (:func:`check_square`; the engine plays square boards only);
- cells ``a1`` .. with ``a1`` top-left, lowercase column letters including ``i``, rows counted
  from the top, and the swap move as the vertex ``swap-pieces``: the Hex protocol adapter
  (:mod:`mctslab.games.hex_protocol`), with the game played under the swap rule;
- ``genmove`` answers ``resign`` when the game is over (Hex has no pass).

Everything else (the line protocol, the administrative commands, ``play``, ``genmove``,
``undo``, time control, the gogui analysis commands) is the engine's GTP.
"""

from __future__ import annotations

from mctslab.interfaces.gtp.protocol import GtpError


def check_square(size: int, more: tuple[int, ...]) -> None:
    """``boardsize size [size]``: a second size (HTP) must repeat the first."""
    if any(m != size for m in more) or len(more) > 1:
        raise GtpError("unacceptable size: only square boards")
