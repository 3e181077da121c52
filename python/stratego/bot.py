"""The bot loop: write ``setup`` and ``move``, call ``run``.

    import stratego
    from stratego.bot import Bot, run

    class RandomBot(Bot):
        name = "random-python"

        def move(self, turn, view):
            return self.rng.choice(view.legal_moves)

    if __name__ == "__main__":
        run(RandomBot())

The loop speaks the whole protocol (protocol.md) for you: it answers ``hello`` with
``ready`` (``multi_game`` and ``single_threaded`` as the bot's attributes say), plays any
number of games in one process, answers a ``setup_request`` that carries a ``fixed`` setup
with that setup (your ``setup`` is not asked), echoes each turn's ``ply``, and gives
``move`` a full ``View`` of the game in both turn forms: from the turn's pieces
(``view = "full"``, the default) or, for ``view = "moves"`` (compact turns), from a
``Tracker`` it keeps from your setup, the opponent's starting squares and every ply.

Per game it sets, before ``new_game``: ``self.hello`` (the ``Hello``), ``self.rules`` (the
``Ruleset``), ``self.color`` (``"red"`` or ``"blue"``), ``self.rng`` (a ``random.Random``
seeded with the game's seed: same seed, same game) and, once known, ``self.deployment``
(your ``Deployment``). ``self.info(text)`` sends an ``info`` line (recorded, never shown to
the opponent). Logs go to standard error: standard output is the protocol's.
"""

from __future__ import annotations

import json
import random
import sys
from typing import IO, Any, Callable, Literal, Optional, Union

from ._stratego import (
    Deployment,
    GameOver,
    Hello,
    Move,
    Ply,
    PlyNotice,
    ProtocolError,
    Quit,
    RulesetError,
    SetupRequest,
    StrategoError,
    Tracker,
    Turn,
    View,
    parse_message,
)

__all__ = ["Bot", "run", "random_setup", "log"]

_out: Optional[IO[str]] = None


def log(text: str) -> None:
    """Writes a line to standard error (never to standard output, the protocol's)."""
    print(text, file=sys.stderr, flush=True)


def _send(msg: dict) -> None:
    if _out is None:
        raise RuntimeError("the bot loop is not running: call stratego.bot.run(bot)")
    # One line per message, flushed at once: a buffered answer never reaches the host.
    _out.write(json.dumps(msg, separators=(",", ":")) + "\n")
    _out.flush()


def random_setup(rules, color: Literal["red", "blue"], rng: random.Random) -> Deployment:
    """A uniformly random valid setup for ``color`` (the rules crate's
    ``Deployment.random``, seeded from ``rng``)."""
    return Deployment.random(rules, color, rng.getrandbits(64))


class Bot:
    """Base class of a bot: override ``move`` (and ``setup``, ``new_game``, ``game_over``
    as you like). ``run`` also accepts any object with a ``move`` method."""

    #: The name in ``ready``.
    name: str = "python-bot"
    #: The version and author in ``ready`` (optional).
    version: Optional[str] = None
    author: Optional[str] = None
    #: Play several games in one process (the loop forgets each game at ``game_over``).
    multi_game: bool = True
    #: You compute only on your own turn, on one thread (lets the host share a CPU
    #: cheaply). Set False if you think on the opponent's time.
    single_threaded: bool = True
    #: ``"full"``: turns carry every piece; ``"moves"``: compact turns, the loop keeps the
    #: board. ``move`` gets the same ``View`` either way.
    view: str = "full"

    # Set by the loop for each game.
    hello: Hello
    rules: Any
    color: Literal["red", "blue"]
    rng: random.Random
    deployment: Optional[Deployment]

    def new_game(self, hello: Hello) -> None:
        """Called at each ``hello``, after ``self.rules``, ``self.color`` and ``self.rng``
        are set."""

    def setup(self, request: SetupRequest) -> Union[str, Deployment, None]:
        """Your setup: a ``Deployment``, setup text (rows or pairs form), or None for a
        uniformly random one. Not called when the event fixed your setup."""
        return None

    def move(self, turn: Turn, view: View) -> Union[Move, str, None]:
        """Your move: one of ``view.legal_moves`` (a ``Move`` or its text), or None to
        resign."""
        raise NotImplementedError("a bot must define move(turn, view)")

    def game_over(self, over: GameOver) -> None:
        """Called at the end of each game."""

    def info(self, text: str) -> None:
        """Sends an ``info`` line: recorded in the game record, never shown to the
        opponent. Any time during a game."""
        send = getattr(self, "_stratego_send", None) or _send
        send({"type": "info", "text": str(text)})


class _GameState:
    def __init__(self, hello: Hello):
        self.hello = hello
        self.rules = hello.rules
        self.color = hello.color
        self.deployment: Optional[Deployment] = None
        self.history: list = []
        self.tracker: Optional[Tracker] = None


def _ready(bot: Any) -> dict:
    msg: dict = {"type": "ready", "name": str(getattr(bot, "name", "python-bot"))}
    for key in ("version", "author"):
        value = getattr(bot, key, None)
        if value is not None:
            msg[key] = str(value)
    msg["multi_game"] = bool(getattr(bot, "multi_game", True))
    if getattr(bot, "single_threaded", True):
        msg["single_threaded"] = True
    view = getattr(bot, "view", "full")
    if view not in ("full", "moves"):
        raise ValueError(f'bot.view must be "full" or "moves", not {view!r}')
    if view == "moves":
        msg["view"] = "moves"
    return msg


def _setup_answer(bot: Any, state: _GameState, request: SetupRequest) -> str:
    if request.fixed is not None:
        # The event chose this setup: the host plays it whatever we answer; echo it.
        state.deployment = Deployment.parse(state.rules, state.color, request.fixed)
        bot.deployment = state.deployment
        return request.fixed
    choice = bot.setup(request) if hasattr(bot, "setup") else None
    if choice is None:
        choice = random_setup(state.rules, state.color, bot.rng)
    if isinstance(choice, Deployment):
        state.deployment = choice
        text = choice.to_rows()
    else:
        text = str(choice)
        try:
            state.deployment = Deployment.parse(state.rules, state.color, text)
        except StrategoError as e:
            # Sent as it is: the host will say what is wrong (invalid_setup).
            log(f"bot: warning: the setup is not valid: {e}")
    bot.deployment = state.deployment
    return text


def _view_of(state: _GameState, turn: Turn) -> View:
    if turn.is_full_view:
        view = turn.view(state.rules, state.history)
        state.history.extend(turn.plies)
        return view
    if state.tracker is None:
        if state.deployment is None:
            raise ProtocolError("a moves-view turn came before a valid setup of ours")
        squares = turn.opponent_squares
        if squares is None:
            raise ProtocolError("the first moves-view turn has no opponent_squares")
        state.tracker = Tracker(state.rules, state.color, state.deployment, squares)
    return turn.view_with(state.tracker)


class _Session:
    """One bot's side of the protocol, message by message: what ``run`` does with each
    line from the host, and what ``stratego.play`` does in-process (the same code, so a
    bot sees the same views either way). ``send`` takes each answer as a dict."""

    def __init__(self, bot: Any, send: Callable[[dict], None]):
        self.bot = bot
        self.send = send
        self.state: Optional[_GameState] = None
        try:
            bot._stratego_send = send
        except AttributeError:
            pass  # an object without a __dict__: its info() (if any) goes to stdout

    def handle(self, msg: Any) -> bool:
        """Acts on one host message; False once it was ``quit``."""
        bot, state = self.bot, self.state
        if isinstance(msg, Hello):
            self.state = _GameState(msg)
            bot.hello = msg
            bot.rules = msg.rules
            bot.color = msg.color
            bot.rng = random.Random(msg.seed)
            bot.deployment = None
            if hasattr(bot, "new_game"):
                bot.new_game(msg)
            self.send(_ready(bot))
        elif isinstance(msg, SetupRequest):
            if state is not None:
                self.send({"type": "setup", "deployment": _setup_answer(bot, state, msg)})
        elif isinstance(msg, Turn):
            if state is not None:
                view = _view_of(state, msg)
                answer = bot.move(msg, view)
                if answer is None:
                    self.send({"type": "resign"})
                else:
                    text = str(answer)
                    if text not in msg.legal_moves:
                        log(f"bot: warning: {text} is not among this turn's legal moves")
                    self.send({"type": "move", "move": text, "ply": msg.ply})
        elif isinstance(msg, GameOver):
            if state is not None and hasattr(bot, "game_over"):
                bot.game_over(msg)
            self.state = None
        elif isinstance(msg, PlyNotice):
            pass  # only sent to bots that asked for immediate_plies; this loop does not
        elif isinstance(msg, Quit):
            return False
        return True


def run(bot: Any, input: Optional[IO[str]] = None, output: Optional[IO[str]] = None) -> None:
    """Plays games on standard input and output (or ``input``/``output``) until ``quit``
    or the end of input."""
    global _out
    stdin = input if input is not None else sys.stdin
    _out = output if output is not None else sys.stdout
    session = _Session(bot, _send)
    while True:
        line = stdin.readline()
        if not line:
            return
        if not line.strip():
            continue
        try:
            msg = parse_message(line)
        except RulesetError as e:
            log(f"bot: the host sent an invalid ruleset: {e}")
            return
        except ProtocolError as e:
            # A newer host may send messages this loop does not know: skip them.
            log(f"bot: ignoring a message I cannot read ({e})")
            continue
        if not session.handle(msg):
            return


# Re-exported for type checkers of bots written against this module.
_ = Ply
