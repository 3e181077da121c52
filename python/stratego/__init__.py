"""Stratego for Python: the stratego-arena referee (the Rust ``stratego-rules`` crate) and
the bot protocol, as a package.

Nothing here is a second implementation of the rules: legal moves, fights, the two-square
and chasing rules and the endings all come from the rules crate, compiled in.

    >>> import stratego
    >>> rules = stratego.Ruleset.preset("classic")
    >>> red = stratego.Deployment.parse(rules, "red", "B32222222S/6655554444/BX98877766/FB3B333B2B")
    >>> blue = stratego.Deployment.parse(rules, "blue", "FB3B333B2B/BX98877766/6655554444/B32222222S")
    >>> game = stratego.Game(rules, red, blue)
    >>> "b4-b5" in game.legal_moves()
    True
    >>> game.play("b4-b5")
    Ply('red', 'b4-b5')

Colours, ranks and squares are strings as on the wire (``"red"``, ``"marshal"``,
``"e4"``); moves are ``Move`` objects that compare equal to their text.

Submodules: ``stratego.bot`` (the bot loop), ``stratego.data`` (records and Gravon games
as replayed positions), ``stratego.encoding`` (views as numpy planes; needs numpy).
"""

from ._stratego import (
    PLANES,
    PROTOCOL_VERSION,
    RANKS,
    Combat,
    Deployment,
    DeploymentError,
    Game,
    GameError,
    GameOver,
    GravonError,
    GravonGame,
    GravonReplay,
    Hello,
    IllegalMoveError,
    Move,
    MoveSyntaxError,
    Outcome,
    Piece,
    Ply,
    PlyNotice,
    ProtocolError,
    Quit,
    Record,
    RecordError,
    Ruleset,
    RulesetError,
    SetupRequest,
    StrategoError,
    Tracker,
    Turn,
    View,
    is_mobile,
    parse_message,
    random_playouts,
    rank_code,
    rank_from_code,
    strength,
)

from .arena import play  # noqa: E402  (after the native names it uses)

COLORS = ("red", "blue")
"""The two sides; Red moves first."""

PRESETS = ("classic", "isf", "barrage", "ucc2012")
"""The names ``Ruleset.preset`` accepts."""


def opponent(color: str) -> str:
    """The other side: ``opponent("red") == "blue"``."""
    if color == "red":
        return "blue"
    if color == "blue":
        return "red"
    raise ValueError(f'invalid color {color!r}: expected "red" or "blue"')


__all__ = [
    "COLORS",
    "PLANES",
    "PRESETS",
    "PROTOCOL_VERSION",
    "RANKS",
    "Combat",
    "Deployment",
    "DeploymentError",
    "Game",
    "GameError",
    "GameOver",
    "GravonError",
    "GravonGame",
    "GravonReplay",
    "Hello",
    "IllegalMoveError",
    "Move",
    "MoveSyntaxError",
    "Outcome",
    "Piece",
    "Ply",
    "PlyNotice",
    "ProtocolError",
    "Quit",
    "Record",
    "RecordError",
    "Ruleset",
    "RulesetError",
    "SetupRequest",
    "StrategoError",
    "Tracker",
    "Turn",
    "View",
    "is_mobile",
    "opponent",
    "parse_message",
    "play",
    "random_playouts",
    "rank_code",
    "rank_from_code",
    "strength",
]
