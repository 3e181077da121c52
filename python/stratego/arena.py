"""Two Python bots playing each other in this process, without the host: as
kaggle-environments' ``env.run``, for debugging and quick experiments.

    import stratego
    from stratego.bot import Bot

    class Random(Bot):
        def move(self, turn, view):
            return self.rng.choice(view.legal_moves)

    record = stratego.play(Random(), Random(), "classic", seed=7)
    print(record.winner, record.reason, len(record.plies))
    print(record.start())                     # the board at the start

Each bot gets exactly the messages the host would send it (``hello``, ``setup_request``,
each ``turn`` in the view form it asked for, ``game_over``), built here and read through
``parse_message`` and the same loop as ``stratego.bot.run``: a bot sees the same views,
with the same seeds, in-process as under ``stratego-host``. The rules crate referees. The
result is a ``Record`` of RECORDS.md's form: for the same game seed, names and moves, the
host's record and this one agree on the setups, every ply with its fight, and the result
(the host's think times, byte counts and process fields are its own).

No clock is enforced (think times are measured and recorded) and no process is started:
a bot that raises stops ``play`` with its exception, so its traceback is yours to read.
"""

from __future__ import annotations

import json
import time
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union

from ._stratego import (
    PROTOCOL_VERSION,
    Deployment,
    Game,
    MoveSyntaxError,
    Record,
    Ruleset,
    StrategoError,
    parse_message,
)
from .bot import _Session

__all__ = ["play", "derive_seed", "DEFAULT_TIME_CONTROL"]

_MASK = (1 << 64) - 1
_COLORS: Tuple[Literal["red"], Literal["blue"]] = ("red", "blue")

#: The time control written in ``hello`` and the record (the host's ``match`` defaults);
#: ``play`` does not enforce it.
DEFAULT_TIME_CONTROL: Dict[str, Any] = {
    "startup_ms": 10000,
    "setup_ms": 10000,
    "move_ms": 1000,
    "bank_ms": None,
    "increment_ms": 0,
}


def _splitmix(state: int) -> int:
    z = (state + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def derive_seed(seed: int, stream: int) -> int:
    """The host's seed derivation (``stratego_protocol::Rng::derive``): an independent
    seed from ``seed`` and a stream number. A bot's ``hello.seed`` is
    ``derive_seed(game_seed, 1)`` for Red and ``derive_seed(game_seed, 2)`` for Blue."""
    return _splitmix((seed ^ ((stream * 0xD1B54A32D192ED03) & _MASK)) & _MASK)


class _Fault(Exception):
    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


class _Seat:
    """One bot in the game: its session, what it answered, what the record keeps."""

    def __init__(self, bot: Any, color: str, name: str):
        self.color = color
        self.name = name
        self.answers: List[dict] = []
        self.info: List[str] = []
        self.session = _Session(bot, self._take)
        self.ready: dict = {}
        self.unsent: List[dict] = []  # plies not yet told to this bot
        self.first_turn = True
        self.think_us = 0
        self.bytes_to = 0
        self.bytes_from = 0

    def _take(self, msg: dict) -> None:
        self.bytes_from += len(json.dumps(msg, separators=(",", ":"))) + 1
        if msg.get("type") == "info":
            if len(self.info) < 200:
                self.info.append(str(msg.get("text", ""))[:1000])
        else:
            self.answers.append(msg)

    def ask(self, msg: dict, want: Tuple[str, ...]) -> dict:
        """Sends one message; returns the bot's answer of a type in ``want``."""
        line = json.dumps(msg, separators=(",", ":"))
        self.bytes_to += len(line) + 1
        self.answers.clear()
        self.session.handle(parse_message(line))
        if not self.answers:
            # Under the host the bot would wait until its clock ran out.
            reason = {"hello": "startup_timeout", "setup_request": "setup_timeout"}.get(msg["type"], "move_timeout")
            raise _Fault(reason, f"no answer to {msg['type']} (the bot returned without one)")
        answer = self.answers[0]
        if answer.get("type") not in want:
            wanted = " or ".join(f'"{w}"' for w in want)
            raise _Fault("unexpected_message", f'expected {wanted}, got "{answer.get("type")}"')
        return answer

    def tell(self, msg: dict) -> None:
        line = json.dumps(msg, separators=(",", ":"))
        self.bytes_to += len(line) + 1
        self.session.handle(parse_message(line))


def _name_of(bot: Any) -> str:
    return str(getattr(bot, "name", None) or type(bot).__name__)


def play(
    bot_a: Any,
    bot_b: Any,
    rules: Union[str, Ruleset] = "classic",
    seed: int = 0,
    *,
    names: Optional[Sequence[str]] = None,
    game_id: Optional[str] = None,
    time_control: Optional[Dict[str, Any]] = None,
) -> Record:
    """Plays one game, ``bot_a`` Red and ``bot_b`` Blue (``stratego.bot.Bot`` objects, or
    anything with ``move(turn, view)``), under ``rules`` (a ``Ruleset`` or a preset name)
    with game seed ``seed`` (each bot's ``hello.seed`` derived from it as the host does:
    ``derive_seed``), and returns its ``Record``.

    ``names`` are the bots' names in the record and in ``hello.opponent`` (default: each
    bot's ``name``); ``game_id`` defaults to the host's form for game 1 of a run with
    master seed ``seed``. The game ends by the rules, a resignation, or a fault of a bot
    (an illegal or unreadable move, an invalid setup), which loses as under the host with
    the same reason code."""
    if bot_a is bot_b:
        raise ValueError("play needs two bot objects (each keeps its own game): play(MyBot(), MyBot(), ...)")
    ruleset = rules if isinstance(rules, Ruleset) else Ruleset.preset(rules)
    seed &= _MASK
    names = list(names) if names is not None else [_name_of(bot_a), _name_of(bot_b)]
    if len(names) != 2:
        raise ValueError("names: one name for each bot")
    gid = game_id if game_id is not None else f"{seed:016x}-1"
    tc = dict(DEFAULT_TIME_CONTROL if time_control is None else time_control)
    seats = {"red": _Seat(bot_a, "red", names[0]), "blue": _Seat(bot_b, "blue", names[1])}
    started = time.time()
    faults: Dict[str, _Fault] = {}
    spec = json.loads(ruleset.to_json())

    def opponent(c: str) -> str:
        return "blue" if c == "red" else "red"

    # hello
    for color, seat in seats.items():
        hello = {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "game_id": gid,
            "color": color,
            "ruleset": spec,
            "time_control": tc,
            "seed": derive_seed(seed, 1 if color == "red" else 2),
            "max_line_bytes": 1 << 20,
            "opponent": seats[opponent(color)].name,
        }
        try:
            seat.ready = seat.ask(hello, ("ready",))
        except _Fault as f:
            faults[color] = f
    # setups
    deployments: Dict[str, Optional[Deployment]] = {"red": None, "blue": None}
    if not faults:
        for color in _COLORS:
            seat = seats[color]
            request = {
                "type": "setup_request",
                "game_id": gid,
                "color": color,
                "squares": ruleset.setup_squares(color),
                "pieces": ruleset.pieces,
                "exact_counts": ruleset.exact_counts,
                "time_ms": tc["setup_ms"],
            }
            try:
                answer = seat.ask(request, ("setup",))
                try:
                    deployments[color] = Deployment.parse(ruleset, color, str(answer.get("deployment", "")))
                except StrategoError as e:
                    raise _Fault("invalid_setup", str(e)) from None
            except _Fault as f:
                faults[color] = f
    game: Optional[Game] = None
    plies: List[dict] = []
    resigned: Optional[str] = None
    if not faults and deployments["red"] is not None and deployments["blue"] is not None:
        game = Game(ruleset, deployments["red"], deployments["blue"])
        setup_squares = {c: [sq for sq, _ in d.pieces] for c, d in deployments.items() if d is not None}
        while not game.is_over:
            color = game.to_move
            seat = seats[color]
            full = seat.ready.get("view", "full") != "moves"
            view = game.view(color)
            turn: Dict[str, Any] = {
                "type": "turn",
                "game_id": gid,
                "ply": game.ply,
                "color": color,
                "plies": seat.unsent,
            }
            if full:
                turn["pieces"] = [p.to_dict() for p in view.pieces]
                turn["captured"] = game.captured
            turn["legal_moves"] = [str(m) for m in view.legal_moves]
            turn["clock"] = {"move_ms": tc["move_ms"] or 0, "remaining_ms": None, "opponent_remaining_ms": None}
            if not full and seat.first_turn:
                turn["opponent_squares"] = setup_squares[opponent(color)]
            seat.first_turn = False
            t0 = time.perf_counter()
            try:
                answer = seat.ask(turn, ("move", "resign"))
            except _Fault as f:
                faults[color] = f
                break
            took = int((time.perf_counter() - t0) * 1e6)
            seat.unsent = []
            if answer["type"] == "resign":
                resigned = color
                break
            text = str(answer.get("move", ""))
            try:
                game.check_move(text)
            except MoveSyntaxError as e:
                faults[color] = _Fault("illegal_move", str(e))
                break
            except StrategoError as e:
                faults[color] = _Fault("illegal_move", f"{text} is illegal: {e}")
                break
            ply = game.play(text)
            seat.think_us += took
            wire = ply.to_dict()
            for s in seats.values():
                s.unsent.append(wire)
            plies.append(dict(wire, time_us=took))
    result = _result(seats, faults, resigned, game)
    for color, seat in seats.items():
        over = {
            "type": "game_over",
            "game_id": gid,
            "result": "draw" if result["winner"] is None else ("win" if result["winner"] == color else "loss"),
            "winner": result["winner"],
            "reason": result["reason"],
            "message": result["message"],
            "plies": seat.unsent,
            "total_plies": len(plies),
            "opponent_setup": [
                {"square": sq, "rank": r} for sq, r in (deployments[opponent(color)] or _NoSetup()).pieces
            ],
        }
        seat.tell(over)
    record = {
        "game_id": gid,
        "index": 0,
        "pair": 0,
        "match_seed": seed,
        "seed": seed,
        "host_version": "python-in-process",
        "started_unix_ms": int(started * 1000),
        "duration_ms": int((time.time() - started) * 1000),
        "ruleset": spec,
        "time_control": tc,
        "bots": {c: _bot_info(seats[c], bot) for c, bot in (("red", bot_a), ("blue", bot_b))},
        "deployments": {c: (d.to_rows() if d is not None else None) for c, d in deployments.items()},
        "plies": plies,
        "result": result,
    }
    return Record.from_json(json.dumps(record))


class _NoSetup:
    pieces: List[Tuple[str, str]] = []


def _bot_info(seat: _Seat, bot: Any) -> dict:
    info: Dict[str, Any] = {"name": seat.name, "command": ["python", "in-process", type(bot).__name__]}
    for key, field in (("name", "reported_name"), ("version", "version"), ("author", "author")):
        if seat.ready.get(key) is not None:
            info[field] = seat.ready[key]
    info.update(
        stderr_tail="",
        stderr_bytes=0,
        info=seat.info,
        bytes_to_bot=seat.bytes_to,
        bytes_from_bot=seat.bytes_from,
        think_us=seat.think_us,
    )
    return info


def _result(seats: Dict[str, _Seat], faults: Dict[str, _Fault], resigned: Optional[str], game: Optional[Game]) -> dict:
    """The result as the host words it (``host/src/run/referee.rs``, ``decide``)."""
    if len(faults) == 2:
        r, b = faults["red"], faults["blue"]
        return {
            "winner": None,
            "reason": "both_faulted",
            "message": f"Red: {r.message} ({r.reason}); Blue: {b.message} ({b.reason})",
        }
    if faults:
        (faulty, f), = faults.items()
        return {
            "winner": "blue" if faulty == "red" else "red",
            "reason": f.reason,
            "message": f"{seats[faulty].name} ({faulty.capitalize()}) forfeits: {f.message}",
            "faulty": faulty,
        }
    if resigned is not None:
        return {
            "winner": "blue" if resigned == "red" else "red",
            "reason": "resignation",
            "message": f"{seats[resigned].name} ({resigned.capitalize()}) resigned",
        }
    assert game is not None and game.outcome is not None, "a game without fault or resignation ends by the rules"
    o = game.outcome
    if o.winner is None:
        message = f"draw: {o.reason}"
    else:
        message = f"{seats[o.winner].name} ({o.winner.capitalize()}) wins: {o.reason}"
    return {"winner": o.winner, "reason": o.reason, "message": message}
