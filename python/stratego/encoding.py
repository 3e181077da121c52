"""Views as numpy arrays for learning (numpy is optional: ``pip install numpy``; it is
imported on first use).

A view becomes ``len(stratego.PLANES)`` planes of height x width (the DeepNash paper's
observation, per piece rank): the viewer's pieces by rank (12 planes, Flag first, Bomb
last, as ``stratego.RANKS``), the opponent's pieces of known rank (12), the opponent's
pieces of unknown rank that have not moved and that have moved (2), the viewer's pieces
whose rank the opponent knows and that have moved (2), and the lakes (1). Every value is
0 or 1. With ``orient=True`` (the default) Blue's view is turned half a turn, so that row
0 is always the viewer's back rank and both sides look alike to a network.

    from stratego.encoding import planes
    x = planes(game.view("blue"))        # numpy array (29, 10, 10), float32
"""

from __future__ import annotations

from typing import Any, Iterable

from ._stratego import PLANES, View

__all__ = ["PLANES", "planes", "stack", "move_index", "numpy"]


def numpy() -> Any:
    """The numpy module, imported on first use, with a clear error when it is missing."""
    try:
        import numpy as np
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("stratego.encoding needs numpy: pip install numpy") from e
    return np


def planes(view: View, orient: bool = True, dtype: Any = "float32") -> Any:
    """The view as an array of shape ``view.planes_shape`` (planes, height, width)."""
    np = numpy()
    raw = np.frombuffer(view.planes(orient), dtype=np.uint8).reshape(view.planes_shape)
    return raw.astype(dtype)


def stack(views: Iterable[View], orient: bool = True, dtype: Any = "float32") -> Any:
    """Several views (of one board size) as one array (n, planes, height, width)."""
    np = numpy()
    return np.stack([planes(v, orient, dtype) for v in views])


def move_index(view: View, move: Any, orient: bool = True) -> int:
    """A move as an index in ``range(cells * cells)`` (``from_cell * cells + to_cell``,
    cells numbered row by row as in ``planes`` with the same ``orient``): a policy
    target."""
    rules = view.rules
    w, h = rules.width, rules.height
    text = str(move)
    a, b = text.split("-")

    def cell(sq: str) -> int:
        f, r = ord(sq[0]) - ord("a"), int(sq[1:]) - 1
        if orient and view.color == "blue":
            f, r = w - 1 - f, h - 1 - r
        return r * w + f

    return cell(a) * (w * h) + cell(b)
