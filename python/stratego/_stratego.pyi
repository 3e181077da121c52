"""Type stubs of the native module (the rules crate and the protocol's messages, wrapped
with PyO3). Colours, ranks and squares are strings as on the wire."""

from os import PathLike
from typing import Any, Dict, Iterable, Iterator, List, Literal, Mapping, Optional, Sequence, Tuple, Union, final

from typing_extensions import Self

Color = Literal["red", "blue"]
RankName = Literal[
    "flag", "spy", "scout", "miner", "sergeant", "lieutenant",
    "captain", "major", "colonel", "general", "marshal", "bomb",
]
Square = str
"""A square name, ``"a1"`` ... ``"o15"``."""
MoveLike = Union["Move", str]
RulesLike = Union["Ruleset", str]
DeploymentLike = Union["Deployment", str]
Counts = Dict[str, int]
ByColorCounts = Dict[str, Dict[str, int]]
PositionPiece = Union[
    Tuple[Square, Color, str],
    Tuple[Square, Color, str, bool],
    Tuple[Square, Color, str, bool, bool],
    Mapping[str, Any],
]

RANKS: List[str]
"""The twelve rank names, Flag first, Bomb last (the order of the view planes)."""
PLANES: List[str]
"""The names of the planes of ``View.planes``, in order."""
PROTOCOL_VERSION: int

class StrategoError(ValueError):
    """Base class of every error of the package."""

class RulesetError(StrategoError):
    """An invalid ruleset; the message names the field."""

class DeploymentError(StrategoError):
    """An invalid setup; the message names the square or the count."""

class GameError(StrategoError):
    """Deployments or a position that cannot start a game."""

class IllegalMoveError(StrategoError):
    """A move the rules forbid here."""

    code: str
    """The rules crate's stable code: ``game_over``, ``off_board``, ``no_piece``,
    ``not_your_piece``, ``immobile_piece``, ``same_square``, ``not_straight``,
    ``too_far``, ``blocked_by_lake``, ``blocked_path``, ``onto_own_piece``,
    ``scout_move_and_attack``, ``two_square_rule``, ``chasing_rule``."""

class MoveSyntaxError(StrategoError):
    """Text that is not a move (``"e4-e5"`` is one); the message quotes it."""

class ProtocolError(StrategoError):
    """A line that is not a host message."""

class RecordError(StrategoError):
    """A game record that does not read or replay."""

class GravonError(StrategoError):
    """A Gravon game file that does not read."""

def strength(rank: str) -> Optional[int]:
    """Fighting strength, Spy 1 ... Marshal 10; None for Bomb and Flag."""

def rank_code(rank: str) -> str:
    """The one-character code: ``F S 2-9 X B``."""

def rank_from_code(code: str) -> str:
    """The rank name of a one-character code."""

def is_mobile(rank: str) -> bool:
    """Whether the rank can move (not a Bomb or the Flag)."""

@final
class Move:
    """A move ``from-to``; compares equal to its text (``Move("e4-e5") == "e4-e5"``)
    and hashes like it. Moves from the package are shared objects."""

    def __new__(cls, from_square: str, to_square: Optional[str] = None) -> Self: ...
    @staticmethod
    def parse(text: str) -> Move: ...
    @property
    def from_square(self) -> Square: ...
    @property
    def to_square(self) -> Square: ...
    @property
    def distance(self) -> int:
        """Squares travelled (more than 1 only for a Scout)."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class Combat:
    """A fight: both ranks are told to both players."""

    @staticmethod
    def resolve(attacker: str, defender: str) -> Combat:
        """The fight by the rule book (the rules crate's ``Combat::resolve``)."""
    @property
    def attacker(self) -> RankName: ...
    @property
    def defender(self) -> RankName: ...
    @property
    def result(self) -> Literal["attacker_wins", "defender_wins", "both_removed"]: ...
    @property
    def flag_captured(self) -> bool: ...
    def to_dict(self) -> Dict[str, str]: ...

@final
class Ply:
    """One ply as it happened."""

    @property
    def color(self) -> Color: ...
    @property
    def move(self) -> Move: ...
    @property
    def combat(self) -> Optional[Combat]: ...
    def to_dict(self) -> Dict[str, Any]:
        """The wire form (``plies`` of a ``turn``)."""

@final
class Outcome:
    """How the rules ended a game."""

    @property
    def winner(self) -> Optional[Color]: ...
    @property
    def reason(self) -> Literal["flag_captured", "no_legal_moves", "neither_can_move", "ply_limit", "sealed_flags"]: ...
    @property
    def is_draw(self) -> bool: ...

@final
class Piece:
    """A piece as one player sees it."""

    @property
    def square(self) -> Square: ...
    @property
    def color(self) -> Color: ...
    @property
    def origin(self) -> Square:
        """Where it stood at the start: a public, stable label."""
    @property
    def rank(self) -> Optional[RankName]:
        """None for an opponent piece whose rank the viewer does not know."""
    @property
    def moved(self) -> bool: ...
    @property
    def revealed(self) -> bool:
        """Whether both players know its rank (a fight, or a Scout's long move)."""
    def to_dict(self) -> Dict[str, Any]: ...

@final
class Ruleset:
    """Every rule setting. ``Ruleset("isf")`` is ``Ruleset.preset("isf")``."""

    def __new__(cls, name: str = "classic") -> Self: ...
    @staticmethod
    def preset(name: str) -> Ruleset:
        """``classic``, ``isf``, ``barrage`` or ``ucc2012``."""
    @staticmethod
    def from_json(text: str) -> Ruleset:
        """Any of the fields; the rest take their classic value; errors name the field."""
    @staticmethod
    def from_file(path: Union[str, PathLike[str]]) -> Ruleset: ...
    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Ruleset: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...
    @property
    def name(self) -> str: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def lakes(self) -> List[Square]: ...
    @property
    def setup_ranks(self) -> Dict[str, Tuple[int, int]]: ...
    @property
    def pieces(self) -> Counts: ...
    @property
    def exact_counts(self) -> bool: ...
    @property
    def two_square_limit(self) -> Optional[int]: ...
    @property
    def scout_path(self) -> bool: ...
    @property
    def more_squares(self) -> bool: ...
    @property
    def scout_move_and_attack(self) -> bool: ...
    @property
    def ply_limit(self) -> Optional[int]: ...
    @property
    def sealed_flags_draw(self) -> bool: ...
    def on_board(self, square: Square) -> bool: ...
    def is_lake(self, square: Square) -> bool: ...
    def in_setup_area(self, color: Color, square: Square) -> bool: ...
    def setup_squares(self, color: Color) -> List[Square]: ...
    def squares(self) -> List[Square]: ...

@final
class Deployment:
    """One side's validated setup."""

    def __new__(
        cls,
        rules: RulesLike,
        color: Color,
        pieces: Union[Mapping[Square, str], Iterable[Tuple[Square, str]]],
    ) -> Self: ...
    @staticmethod
    def parse(rules: RulesLike, color: Color, text: str) -> Deployment:
        """Rows form (top rank first, ``/`` between rows) or pairs form (``a1=F b1=B``)."""
    @staticmethod
    def random(rules: RulesLike, color: Color, seed: int = 0) -> Deployment:
        """A uniformly random setup (SplitMix64 seeded with ``seed``)."""
    @property
    def color(self) -> Color: ...
    @property
    def rules(self) -> Ruleset: ...
    @property
    def pieces(self) -> List[Tuple[Square, RankName]]: ...
    def to_dict(self) -> Dict[Square, RankName]: ...
    def rank_at(self, square: Square) -> Optional[RankName]: ...
    def to_rows(self) -> str: ...
    def to_pairs(self) -> str: ...
    def __len__(self) -> int: ...

@final
class Game:
    """A game refereed by the rules crate."""

    def __new__(cls, rules: RulesLike, red: DeploymentLike, blue: DeploymentLike) -> Self: ...
    @staticmethod
    def from_position(
        rules: RulesLike,
        pieces: Iterable[PositionPiece],
        to_move: Color = "red",
        plies: int = 0,
        captured: Optional[Mapping[str, Mapping[str, int]]] = None,
        check_army: bool = True,
    ) -> Game:
        """Any position (repetition histories start empty). Raises ``GameError`` when a
        side has more of a rank (on the board and captured) than the ruleset's army, or no
        Flag, unless ``check_army=False``."""
    @property
    def rules(self) -> Ruleset: ...
    @property
    def to_move(self) -> Color: ...
    @property
    def ply(self) -> int: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def outcome(self) -> Optional[Outcome]: ...
    @property
    def history(self) -> List[Ply]: ...
    @property
    def last_ply(self) -> Optional[Ply]: ...
    @property
    def deployments(self) -> Tuple[Deployment, Deployment]: ...
    @property
    def captured(self) -> ByColorCounts: ...
    @property
    def position_hash(self) -> int: ...
    def legal_moves(self) -> List[Move]:
        """The side to move's legal moves (empty once over), in a fixed order."""
    def legal_move_count(self) -> int: ...
    def has_legal_move(self, color: Color) -> bool: ...
    def flag_sealed_from(self, attacker: Color) -> bool: ...
    def is_legal(self, move: MoveLike) -> bool: ...
    def check_move(self, move: MoveLike) -> None:
        """Raises ``IllegalMoveError`` saying why the move is illegal."""
    def play(self, move: MoveLike) -> Ply:
        """Checks and plays a move; returns the ply with its fight."""
    def play_all(self, moves: Union[str, Iterable[MoveLike]]) -> List[Ply]:
        """Plays moves in order (a list, or one string of moves separated by spaces)."""
    def piece_at(self, square: Square) -> Optional[Tuple[Color, RankName]]: ...
    def board(self) -> List[Tuple[Square, Color, RankName]]:
        """Every piece with its rank (full knowledge; a player's is ``view``)."""
    def view(self, color: Color) -> View:
        """Everything ``color`` may know, and nothing more."""
    def copy(self) -> Game: ...
    def __copy__(self) -> Game: ...
    def __deepcopy__(self, memo: Any) -> Game: ...
    def playout(self, seed: int = 0, max_plies: Optional[int] = None) -> int:
        """Random moves in Rust until the end (or ``max_plies``); returns plies played."""
    def random_playouts(self, n: int, seed: int = 0, max_plies: Optional[int] = None) -> Dict[str, Any]:
        """``n`` random playouts from here (the game unchanged); totals as
        ``random_playouts``."""

def random_playouts(
    rules: RulesLike,
    games: int,
    seed: int = 0,
    max_plies: Optional[int] = None,
    red: Optional[DeploymentLike] = None,
    blue: Optional[DeploymentLike] = None,
) -> Dict[str, Any]:
    """Random games from random setups, played in Rust with the GIL released. Returns
    ``games``, ``plies``, ``red_wins``, ``blue_wins``, ``draws``, ``unfinished`` and
    ``reasons`` (count per end reason)."""

@final
class View:
    """What one player may know of a game, and nothing more."""

    @property
    def color(self) -> Color: ...
    @property
    def to_move(self) -> Color: ...
    @property
    def is_my_turn(self) -> bool: ...
    @property
    def ply(self) -> int: ...
    @property
    def rules(self) -> Ruleset: ...
    @property
    def pieces(self) -> List[Piece]: ...
    def own_pieces(self) -> List[Piece]: ...
    def opponent_pieces(self) -> List[Piece]: ...
    def piece_at(self, square: Square) -> Optional[Piece]: ...
    @property
    def captured(self) -> ByColorCounts: ...
    @property
    def history(self) -> List[Ply]: ...
    @property
    def legal_moves(self) -> List[Move]: ...
    @property
    def outcome(self) -> Optional[Outcome]: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def planes(self, orient: bool = True) -> bytes:
        """``len(PLANES) * height * width`` bytes of 0 or 1 (see ``stratego.encoding``)."""
    @property
    def planes_shape(self) -> Tuple[int, int, int]: ...
    def unseen(self) -> Counts:
        """The opponent's ranks not yet seen: its army less its losses and its pieces of
        known rank (``{"bomb": 6, "scout": 5, ...}``)."""
    def sample_world(self, rng: Union[int, Any]) -> Game:
        """A full position that agrees with this view: the unseen ranks dealt at random to
        the unknown pieces (a moved piece gets no Bomb or Flag; known ranks stay).
        ``rng``: an int seed or a ``random.Random``."""

@final
class Tracker:
    """The board as one player knows it, kept from the plies (for ``"view": "moves"``)."""

    def __new__(cls, rules: RulesLike, color: Color, deployment: DeploymentLike, opponent_squares: Sequence[Square]) -> Self: ...
    def apply(self, ply: Ply) -> None: ...
    def apply_all(self, plies: Iterable[Ply]) -> None: ...
    @property
    def color(self) -> Color: ...
    @property
    def ply(self) -> int: ...
    @property
    def pieces(self) -> List[Piece]: ...
    def view(self, legal_moves: Optional[Iterable[MoveLike]] = None) -> View: ...

def parse_message(line: Union[str, bytes]) -> Union[Hello, SetupRequest, Turn, PlyNotice, GameOver, Quit]:
    """Decodes one line from the host; raises ``ProtocolError`` for anything else."""

@final
class Hello:
    type: Literal["hello"]
    @property
    def protocol(self) -> int: ...
    @property
    def game_id(self) -> str: ...
    @property
    def color(self) -> Color: ...
    @property
    def rules(self) -> Ruleset: ...
    @property
    def time_control(self) -> Dict[str, Optional[int]]: ...
    @property
    def seed(self) -> int: ...
    @property
    def max_line_bytes(self) -> int: ...
    @property
    def opponent(self) -> Optional[str]: ...

@final
class SetupRequest:
    type: Literal["setup_request"]
    @property
    def game_id(self) -> str: ...
    @property
    def color(self) -> Color: ...
    @property
    def squares(self) -> List[Square]: ...
    @property
    def pieces(self) -> Counts: ...
    @property
    def exact_counts(self) -> bool: ...
    @property
    def time_ms(self) -> int: ...
    @property
    def fixed(self) -> Optional[str]: ...

@final
class Turn:
    type: Literal["turn"]
    @property
    def game_id(self) -> str: ...
    @property
    def ply(self) -> int: ...
    @property
    def color(self) -> Color: ...
    @property
    def plies(self) -> List[Ply]: ...
    @property
    def is_full_view(self) -> bool: ...
    @property
    def pieces(self) -> List[Piece]: ...
    @property
    def captured(self) -> Optional[ByColorCounts]: ...
    @property
    def legal_moves(self) -> List[Move]: ...
    @property
    def clock(self) -> Dict[str, Optional[int]]: ...
    @property
    def strike(self) -> Optional[Dict[str, Any]]: ...
    @property
    def opponent_squares(self) -> Optional[List[Square]]: ...
    def view(self, rules: RulesLike, history: Optional[Iterable[Ply]] = None) -> View:
        """The full view (raises for a moves-view turn)."""
    def view_with(self, tracker: Tracker) -> View:
        """Applies the turn's plies to the tracker and returns its view."""

@final
class PlyNotice:
    type: Literal["ply"]
    @property
    def game_id(self) -> str: ...
    @property
    def number(self) -> int: ...
    @property
    def ply(self) -> Ply: ...

@final
class GameOver:
    type: Literal["game_over"]
    @property
    def game_id(self) -> str: ...
    @property
    def result(self) -> Literal["win", "loss", "draw"]: ...
    @property
    def winner(self) -> Optional[Color]: ...
    @property
    def reason(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def plies(self) -> List[Ply]: ...
    @property
    def total_plies(self) -> int: ...
    @property
    def opponent_setup(self) -> List[Tuple[Square, RankName]]: ...

@final
class Quit:
    type: Literal["quit"]

@final
class CompactRecords:
    """The records of a compact records file (``games.jsonl.zst``: one zstd frame per
    record), read one frame at a time; ``stratego.data.read_records`` uses it. A frame
    that decompresses to more than ``max_record_bytes`` raises ``RecordError`` without
    being held (a decompression bomb)."""

    def __new__(cls, path: Union[str, PathLike[str]], max_record_bytes: int = ...) -> Self:
        """``max_record_bytes``: 67108864 (64 MiB) by default."""
    def __iter__(self) -> Iterator[Record]: ...
    def __next__(self) -> Record: ...
    @property
    def torn(self) -> Optional[str]:
        """Where the torn last frame starts, once the iteration ended; ``None`` if none."""

@final
class Record:
    """One game record (a line of ``games.jsonl``)."""

    @staticmethod
    def from_json(line: str) -> Record: ...
    @property
    def game_id(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def pair(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def match_seed(self) -> int: ...
    @property
    def rules(self) -> Ruleset: ...
    @property
    def bots(self) -> Dict[str, str]: ...
    @property
    def info(self) -> Dict[str, List[str]]:
        """Each bot's ``info`` lines in this game."""
    @property
    def deployments(self) -> Dict[str, Optional[str]]: ...
    @property
    def plies(self) -> List[Ply]: ...
    @property
    def times_us(self) -> List[int]: ...
    @property
    def winner(self) -> Optional[Color]: ...
    @property
    def reason(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def faulty(self) -> Optional[Color]: ...
    def start(self) -> Game: ...
    def replay(self) -> Optional[Outcome]:
        """Replays every ply with the rules crate; the rules' outcome or None."""
    def to_json(self) -> str: ...

@final
class GravonGame:
    """One Gravon (StraDoS2) XML game."""

    @staticmethod
    def parse(xml: str) -> GravonGame: ...
    @staticmethod
    def from_game(game_type: str, game: Game, result: Optional[Tuple[int, int]] = None) -> GravonGame: ...
    @property
    def game_type(self) -> str: ...
    @property
    def field(self) -> str: ...
    @property
    def moves(self) -> List[Move]: ...
    @property
    def result(self) -> Optional[Tuple[int, int]]: ...
    @property
    def winner(self) -> Optional[Color]: ...
    def ruleset(self) -> Optional[Ruleset]: ...
    def deployments(self) -> Tuple[Deployment, Deployment]: ...
    def start(self) -> Game: ...
    def replay(self) -> GravonReplay: ...
    def to_xml(self) -> str: ...

@final
class GravonReplay:
    @property
    def plies(self) -> int: ...
    @property
    def illegal(self) -> Optional[Tuple[int, Move, str, str]]:
        """``(ply, move, code, message)`` of the first illegal move."""
    @property
    def outcome(self) -> Optional[Outcome]: ...
    @property
    def agrees(self) -> bool: ...
