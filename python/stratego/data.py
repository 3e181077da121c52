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

__all__ = ["read_records", "read_gravon", "gravon_games", "positions", "Position", "MAX_RECORD_BYTES"]

#: The longest record read by default (a line, a zstd frame's content, a Gravon game's
#: XML), as the host's ``--max-record-bytes``: what is longer raises without being held
#: (a decompression bomb is a few kilobytes that decompress to gigabytes).
MAX_RECORD_BYTES = 64 * 1024 * 1024

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
        head = f.read(4)
    # A zstd frame, or a skippable frame (metadata a zstd reader reads past).
    return head == _ZSTD_MAGIC or (len(head) == 4 and head[0] & 0xF0 == 0x50 and head[1:] == b"\x2a\x4d\x18")


_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def read_records(path: PathLike, *, max_record_bytes: int = MAX_RECORD_BYTES) -> Iterator[Record]:
    """Every record of a records file, plain (``games.jsonl``, JSON Lines) or compact
    (``games.jsonl.zst``, one zstd frame per record; RECORDS.md), or of an ``--out``
    directory's, in file order (read a line or a frame at a time: any size). A torn last
    frame of a compact file (a host killed in its write) is dropped with a warning. A line
    or frame longer than ``max_record_bytes`` raises ``RecordError`` naming it, without
    being held."""
    file = _records_file(path)
    if _is_compact(file):
        records = CompactRecords(file, max_record_bytes)
        yield from records
        if records.torn is not None:
            warnings.warn(f"{file}: the last record is torn at {records.torn}: dropped", stacklevel=2)
        return
    with open(file, "rb") as f:
        n = 0
        while True:
            raw = f.readline(max_record_bytes + 1)
            if not raw:
                return
            n += 1
            if len(raw) > max_record_bytes and not raw.endswith(b"\n"):
                raise RecordError(
                    f"{file}:{n}: longer than {max_record_bytes} bytes, the longest record read "
                    "(not a records file? max_record_bytes raises the limit)"
                )
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise RecordError(f"{file}:{n}: not UTF-8 text: {e}") from None
            try:
                yield Record.from_json(line)
            except ValueError as e:
                raise type(e)(f"{file}:{n}: {e}") from None


def _gravon_entries(path: str) -> list:
    """``(name, file, member)`` for every ``.xml`` game in ``path``, sorted by name; a
    member is a name inside a ``.zip`` (``None`` for an ``.xml`` file)."""
    found = []
    if os.path.isdir(path):
        for root, _dirs, files in os.walk(path):
            for f in files:
                if f.endswith(".zip") or f.endswith(".xml"):
                    found.append(os.path.join(root, f))
    else:
        found.append(path)
    entries: list = []
    for p in found:
        if p.endswith(".zip"):
            with zipfile.ZipFile(p) as z:
                for entry in z.namelist():
                    if entry.endswith(".xml"):
                        entries.append((f"{os.path.basename(p)}:{entry}", p, entry))
        elif p.endswith(".xml"):
            entries.append((os.path.basename(p), p, None))
        else:
            raise ValueError(f"{p}: not a .zip or .xml Gravon file")
    entries.sort()
    return entries


def read_gravon(path: PathLike, *, max_game_bytes: int = MAX_RECORD_BYTES) -> Iterator[Tuple[str, str]]:
    """``(name, xml)`` for every ``.xml`` game in ``path``: a ``.zip`` archive, an
    ``.xml`` file, or a directory searched recursively; sorted by name
    (``"archive.zip:game.xml"`` inside an archive). Read one game at a time; a game whose
    text (decompressed) is longer than ``max_game_bytes`` raises ``GravonError`` naming it,
    without being held (what a zip header says is not trusted)."""
    archive = None
    try:
        for name, file, member in _gravon_entries(os.fspath(path)):
            if member is None:
                with open(file, "rb") as f:
                    raw = f.read(max_game_bytes + 1)
            else:
                if archive is None or archive.filename != file:
                    if archive is not None:
                        archive.close()
                    archive = zipfile.ZipFile(file)
                with archive.open(member) as f:
                    raw = f.read(max_game_bytes + 1)
            if len(raw) > max_game_bytes:
                raise GravonError(f"{name}: longer than {max_game_bytes} bytes, the longest game read")
            yield name, raw.decode("utf-8")
    finally:
        if archive is not None:
            archive.close()


def gravon_games(
    path: PathLike, *, skip_unreadable: bool = True, max_game_bytes: int = MAX_RECORD_BYTES
) -> Iterator[Tuple[str, GravonGame]]:
    """``(name, GravonGame)`` for every game in ``path`` (see ``read_gravon``), one at a
    time. Games that do not parse (``ultimate lightning`` games use squares no other type
    has) are skipped, or raise with ``skip_unreadable=False``; a game longer than
    ``max_game_bytes`` raises ``GravonError``."""
    for name, xml in read_gravon(path, max_game_bytes=max_game_bytes):
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
