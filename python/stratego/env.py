"""A two-player, turn-based learning environment in the style of PettingZoo's AEC API
(agent by agent), on the rules crate: observations are the view planes
(``stratego.encoding``), actions are move indices (``encoding.move_index``: ``from_cell *
cells + to_cell``, cells seen from the acting side), and every observation comes with a
legal-move mask. Needs numpy; neither gymnasium nor pettingzoo is required (if gymnasium is
installed, ``observation_space(agent)`` and ``action_space(agent)`` return its spaces).

    from stratego.env import StrategoEnv

    env = StrategoEnv("barrage")
    env.reset(seed=1)
    for agent in env.agent_iter():            # until the game ends
        obs, reward, terminated, truncated, info = env.last()
        legal = info["action_mask"].nonzero()[0]
        env.step(int(rng.choice(legal)))
    print(env.rewards)                     # {"red": 1.0, "blue": -1.0}

The game is a ``stratego.Game`` (``env.game``): same rules, same views and same plies as
the host's for the same setups and moves. Rewards are given at the end: +1 to the winner,
-1 to the loser, 0 to both for a draw. ``max_plies`` (optional) truncates a game
(``truncations`` true, rewards 0) before the ruleset's own ply limit, which ends it as a
draw (``terminations``).
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Literal, Optional, Tuple, Union, cast

from ._stratego import Deployment, Game, Move, Ruleset, View
from .arena import derive_seed
from .encoding import numpy

__all__ = ["StrategoEnv"]

AGENTS = ["red", "blue"]


class StrategoEnv:
    """Stratego for self-play: ``reset``, ``observe``/``last``, ``step``, agent by agent.

    ``rules`` is a ``Ruleset`` or a preset name; ``orient`` (default True) turns Blue's
    planes and actions half a turn, so that both sides look alike to one network."""

    metadata = {"name": "stratego_v0", "is_parallelizable": False}
    possible_agents: List[str] = list(AGENTS)

    def __init__(self, rules: Union[str, Ruleset] = "classic", *, orient: bool = True, max_plies: Optional[int] = None):
        self.rules = rules if isinstance(rules, Ruleset) else Ruleset.preset(rules)
        self.orient = orient
        self.max_plies = max_plies
        self.cells = self.rules.width * self.rules.height
        self.num_actions = self.cells * self.cells
        self.game: Optional[Game] = None
        self.agents: List[str] = []
        self.rewards: Dict[str, float] = {}
        self._cumulative_rewards: Dict[str, float] = {}
        self.terminations: Dict[str, bool] = {}
        self.truncations: Dict[str, bool] = {}
        self.infos: Dict[str, Dict[str, Any]] = {}
        self.agent_selection = "red"
        self._legal: Dict[int, Move] = {}
        self._np = numpy()
        w, h = self.rules.width, self.rules.height
        # Cell numbers of every square, as Red and as Blue see them.
        self._cell: Dict[str, Dict[str, int]] = {"red": {}, "blue": {}}
        for sq in self.rules.squares():
            f, r = ord(sq[0]) - ord("a"), int(sq[1:]) - 1
            self._cell["red"][sq] = r * w + f
            self._cell["blue"][sq] = (h - 1 - r) * w + (w - 1 - f) if orient else r * w + f

    # -- spaces (gymnasium, when installed) -------------------------------------------------
    def observation_space(self, agent: str) -> Any:
        """``Box(0, 1, (planes, height, width))`` (needs gymnasium)."""
        from gymnasium.spaces import Box

        return Box(0.0, 1.0, (29, self.rules.height, self.rules.width), dtype=self._np.float32)

    def action_space(self, agent: str) -> Any:
        """``Discrete(cells * cells)`` (needs gymnasium)."""
        from gymnasium.spaces import Discrete

        return Discrete(self.num_actions)

    # -- the AEC loop -------------------------------------------------------------------
    def reset(
        self,
        seed: Optional[int] = None,
        options: Optional[Dict[str, Any]] = None,
        *,
        setups: Optional[Tuple[Union[str, Deployment], Union[str, Deployment]]] = None,
    ) -> None:
        """A new game: ``setups`` (Red's, Blue's; a ``Deployment`` or setup text), else
        uniformly random setups from ``seed`` (Red's from ``derive_seed(seed, 1)``, Blue's
        from ``derive_seed(seed, 2)``; no seed: a fresh random one)."""
        if setups is None and options:
            setups = options.get("setups")
        if setups is None:
            if seed is None:
                import random

                seed = random.getrandbits(64)
            red = Deployment.random(self.rules, "red", derive_seed(seed, 1))
            blue = Deployment.random(self.rules, "blue", derive_seed(seed, 2))
            self.game = Game(self.rules, red, blue)
        else:
            self.game = Game(self.rules, setups[0], setups[1])
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self._update()

    def _update(self) -> None:
        game = self.game
        assert game is not None
        self.agent_selection = game.to_move
        cell = self._cell[game.to_move]
        n = self.cells
        self._legal = {cell[m.from_square] * n + cell[m.to_square]: m for m in game.legal_moves()}

    def observe(self, agent: str) -> Any:
        """What ``agent`` may know, as planes (float32, shape ``(29, height, width)``)."""
        assert self.game is not None, "call reset() first"
        view = self.game.view(cast(Literal["red", "blue"], agent))
        np = self._np
        return np.frombuffer(view.planes(self.orient), dtype=np.uint8).reshape(view.planes_shape).astype(np.float32)

    def action_mask(self, agent: Optional[str] = None) -> Any:
        """A bool array over the actions: True for the legal moves of ``agent`` (all False
        when it is not to move or the game is over)."""
        mask = self._np.zeros(self.num_actions, dtype=bool)
        if (agent is None or agent == self.agent_selection) and self.agents:
            mask[list(self._legal)] = True
        return mask

    def legal_actions(self) -> List[int]:
        """The legal actions of the agent to move, in the rules crate's move order."""
        return list(self._legal)

    def action_to_move(self, action: int) -> Move:
        """The move of a legal action of the agent to move (``KeyError`` otherwise)."""
        return self._legal[int(action)]

    def move_to_action(self, move: Union[Move, str]) -> int:
        """The action of a move of the agent to move."""
        cell = self._cell[self.agent_selection]
        a, b = str(move).split("-")
        return cell[a] * self.cells + cell[b]

    def last(self, observe: bool = True) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        """``(observation, reward, terminated, truncated, info)`` of the agent to act,
        with ``info["action_mask"]``."""
        agent = self.agent_selection
        obs = self.observe(agent) if observe else None
        info = dict(self.infos[agent])
        info["action_mask"] = self.action_mask(agent)
        return obs, self._cumulative_rewards[agent], self.terminations[agent], self.truncations[agent], info

    def agent_iter(self, max_iter: int = 1 << 63) -> Iterator[str]:
        """The agent to act, until the game is over (PettingZoo's loop; ``agents`` is
        emptied when the game ends or is truncated, ``rewards`` then says who won)."""
        for _ in range(max_iter):
            if not self.agents:
                return
            yield self.agent_selection

    def step(self, action: Optional[int]) -> None:
        """Plays the action (an index in ``range(num_actions)``) for the agent to move. An
        illegal action raises ``IllegalMoveError`` (the mask says which are legal)."""
        game = self.game
        assert game is not None, "call reset() first"
        if game.is_over or not self.agents:
            raise RuntimeError("the game is over: call reset()")
        move = self._legal.get(int(action)) if action is not None else None
        if move is None:
            from ._stratego import IllegalMoveError

            raise IllegalMoveError(f"action {action} is not a legal move of {self.agent_selection}")
        game.play(move)
        self.rewards = {a: 0.0 for a in AGENTS}
        if game.is_over:
            outcome = game.outcome
            assert outcome is not None
            if outcome.winner is not None:
                loser = "blue" if outcome.winner == "red" else "red"
                self.rewards = {outcome.winner: 1.0, loser: -1.0}
            self.terminations = {a: True for a in AGENTS}
            for a in AGENTS:
                self.infos[a] = {"outcome": outcome}
        elif self.max_plies is not None and game.ply >= self.max_plies:
            self.truncations = {a: True for a in AGENTS}
        for a in AGENTS:
            self._cumulative_rewards[a] += self.rewards[a]
        if game.is_over or self.truncations["red"]:
            self.agent_selection = game.to_move
            self._legal = {}
            self.agents = []  # the game is over for both: reset() for another
        else:
            self._update()

    def view(self, agent: Optional[str] = None) -> View:
        """The ``View`` of ``agent`` (default: the agent to act)."""
        assert self.game is not None, "call reset() first"
        return self.game.view(cast(Literal["red", "blue"], agent or self.agent_selection))

    def render(self) -> str:
        """The board as text, every rank shown (``str(env.game)``)."""
        return str(self.game)
