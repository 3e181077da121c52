"""Data for learning: the games of a records file (``games.jsonl``, or the compact
``games.jsonl.zst``; RECORDS.md) or an
``--out`` directory, and Gravon archives (``.zip`` of XML games, ``.xml`` files, or a
directory of them), as replayed positions.

    from stratego.data import positions

    for pos in positions("results/games.jsonl"):      # or "gravon/strados2005-1.zip"
        view = pos.view()            # what the side to move knew
        target = pos.move            # what it played
        value = pos.winner           # who won in the end ("red", "blue" or None)

Every position is replayed by the rules crate. ``pos.game`` is the live game before
``pos.move``: it moves on when the iteration does, so ``pos.game.copy()`` to keep it.
"""

from __future__ import annotations

import os
import warnings
import zipfile
from typing import Iterator, Optional, Tuple, Union

from ._stratego import CompactRecords, Game, GravonError, GravonGame, Move, Record, RecordError, View

__all__ = ["read_records", "read_gravon", "gravon_games", "positions", "Position"]

PathLike = Union[str, "os.PathLike[str]"]


def _records_file(path: PathLike) -> str:
    path = os.fspath(path)
    if os.path.isdir(path):
        plain = os.path.join(path, "games.jsonl")
        compact = os.path.join(path, "games.jsonl.zst")
        if os.path.exists(plain) and os.path.exists(compact):
            raise RecordError(f"{path}: holds both games.jsonl and games.jsonl.zst; keep one")
        return compact if os.path.exists(compact) else plain
    return path


def _is_compact(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == _ZSTD_MAGIC


_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def read_records(path: PathLike) -> Iterator[Record]:
    """Every record of a records file, plain (``games.jsonl``, JSON Lines) or compact
    (``games.jsonl.zst``, one zstd frame per record; RECORDS.md), or of an ``--out``
    directory's, in file order (read a line or a frame at a time: any size). A torn last
    frame of a compact file (a host killed in its write) is dropped with a warning."""
    file = _records_file(path)
    if _is_compact(file):
        records = CompactRecords(file)
        yield from records
        if records.torn is not None:
            warnings.warn(f"{file}: the last record is torn at {records.torn}: dropped", stacklevel=2)
        return
    with open(file, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield Record.from_json(line)
            except ValueError as e:
                raise type(e)(f"{_records_file(path)}:{n}: {e}") from None


def read_gravon(path: PathLike) -> Iterator[Tuple[str, str]]:
    """``(name, xml)`` for every ``.xml`` game in ``path``: a ``.zip`` archive, an
    ``.xml`` file, or a directory searched recursively; sorted by name
    (``"archive.zip:game.xml"`` inside an archive)."""
    path = os.fspath(path)
    found = []
    if os.path.isdir(path):
        for root, _dirs, files in os.walk(path):
            for f in files:
                if f.endswith(".zip") or f.endswith(".xml"):
                    found.append(os.path.join(root, f))
    else:
        found.append(path)
    games = []
    for p in found:
        if p.endswith(".zip"):
            with zipfile.ZipFile(p) as z:
                for entry in z.namelist():
                    if entry.endswith(".xml"):
                        text = z.read(entry).decode("utf-8")
                        games.append((f"{os.path.basename(p)}:{entry}", text))
        elif p.endswith(".xml"):
            with open(p, encoding="utf-8") as f:
                games.append((os.path.basename(p), f.read()))
        else:
            raise ValueError(f"{p}: not a .zip or .xml Gravon file")
    games.sort()
    return iter(games)


def gravon_games(path: PathLike, *, skip_unreadable: bool = True) -> Iterator[Tuple[str, GravonGame]]:
    """``(name, GravonGame)`` for every game in ``path`` (see ``read_gravon``). Games that
    do not parse (``ultimate lightning`` games use squares no other type has) are skipped,
    or raise with ``skip_unreadable=False``."""
    for name, xml in read_gravon(path):
        try:
            yield name, GravonGame.parse(xml)
        except GravonError as e:
            if not skip_unreadable:
                raise GravonError(f"{name}: {e}") from None


class Position:
    """One position of a replayed game: ``game`` before ``move``, played at ``ply``
    (0-based) by ``game.to_move``; ``winner`` is the game's recorded winner (None for a
    draw or no result); ``source`` names the game."""

    __slots__ = ("source", "game", "move", "ply", "winner")

    def __init__(self, source: str, game: Game, move: Move, ply: int, winner: Optional[str]):
        self.source = source
        self.game = game
        self.move = move
        self.ply = ply
        self.winner = winner

    def view(self) -> View:
        """What the side to move knew here."""
        return self.game.view(self.game.to_move)

    def __repr__(self) -> str:
        return f"<Position {self.source} ply {self.ply}: {self.game.to_move} plays {self.move}>"


def _replay(source: str, game: Game, moves, winner: Optional[str]) -> Iterator[Position]:
    for i, m in enumerate(moves):
        yield Position(source, game, m, i, winner)
        game.play(m)


def positions(source: Union[PathLike, Record, GravonGame]) -> Iterator[Position]:
    """Every position of a record, a Gravon game, or every game of a path: a records file
    or ``--out`` directory (``.jsonl`` or ``.jsonl.zst``, or a directory holding
    ``games.jsonl`` or ``games.jsonl.zst``), else a
    Gravon ``.zip``/``.xml``/directory. Gravon games of types without a ruleset
    (``ultimate lightning``) are skipped; a move the rules refuse raises
    ``IllegalMoveError``."""
    if isinstance(source, Record):
        yield from _replay(source.game_id, source.start(), [p.move for p in source.plies], source.winner)
        return
    if isinstance(source, GravonGame):
        yield from _replay("gravon", source.start(), source.moves, source.winner)
        return
    path = os.fspath(source)
    if (
        path.endswith((".jsonl", ".jsonl.zst"))
        or os.path.isfile(os.path.join(path, "games.jsonl"))
        or os.path.isfile(os.path.join(path, "games.jsonl.zst"))
    ):
        for rec in read_records(path):
            if rec.deployments["red"] is None or rec.deployments["blue"] is None:
                continue  # a side never gave a valid setup: no position to learn from
            yield from _replay(rec.game_id, rec.start(), [p.move for p in rec.plies], rec.winner)
        return
    for name, g in gravon_games(path):
        if g.ruleset() is None or not g.moves:
            continue
        yield from _replay(name, g.start(), g.moves, g.winner)
