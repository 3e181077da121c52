"""The learning environment (stratego.env.StrategoEnv): the view planes as observations, a
legal-move mask, rewards at the end; its games equal the host's for the same setups and
moves."""

import random

import numpy as np
import pytest

import stratego
from stratego import IllegalMoveError
from stratego.data import read_records
from stratego.encoding import move_index, planes
from stratego.env import StrategoEnv

from conftest import CALM_CLOCK, run_host


def test_the_environment_replays_a_host_game_move_for_move(host, tmp_path):
    out = tmp_path / "out"
    run_host(host, "match", *CALM_CLOCK, "sample-bot", "sample-bot --strategy random", "--games", "2", "--seed", "8",
             "--rules", "barrage", "--out", str(out), "-q")
    for rec in read_records(out):
        env = StrategoEnv(rec.rules)
        env.reset(setups=(rec.deployments["red"], rec.deployments["blue"]))
        replay = rec.start()
        for ply in rec.plies:
            agent = env.agent_selection
            assert agent == ply.color
            obs, reward, term, trunc, info = env.last()
            assert not term and not trunc and reward == 0
            view = replay.view(agent)
            assert np.array_equal(obs, planes(view))
            action = env.move_to_action(ply.move)
            assert action == move_index(view, ply.move)
            mask = info["action_mask"]
            assert mask[action] and mask.sum() == len(view.legal_moves)
            assert sorted(np.flatnonzero(mask)) == sorted(move_index(view, m) for m in view.legal_moves)
            env.step(action)
            replay.play(ply.move)
        assert [p.to_dict() for p in env.game.history] == [p.to_dict() for p in rec.plies]
        if rec.reason in ("flag_captured", "no_legal_moves", "neither_can_move", "ply_limit", "sealed_flags"):
            assert all(env.terminations.values())
            assert env.game.outcome.reason == rec.reason and env.game.outcome.winner == rec.winner
            if rec.winner is not None:
                loser = stratego.opponent(rec.winner)
                assert env.rewards == {rec.winner: 1.0, loser: -1.0}


def test_random_self_play_to_the_end():
    env = StrategoEnv("barrage")
    rng = random.Random(0)
    for game in range(3):
        env.reset(seed=game)
        steps = 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                break
            assert obs.shape == (29, 10, 10) and obs.dtype == np.float32
            legal = np.flatnonzero(info["action_mask"])
            assert not env.action_mask(stratego.opponent(agent)).any()
            env.step(int(rng.choice(legal)))
            steps += 1
        assert env.game.is_over and steps == env.game.ply
        assert sum(env.rewards.values()) == 0


def test_same_seed_same_setups_and_truncation():
    a, b = StrategoEnv("classic"), StrategoEnv("classic")
    a.reset(seed=5)
    b.reset(seed=5)
    assert a.game.deployments == b.game.deployments
    env = StrategoEnv("classic", max_plies=10)
    env.reset(seed=1)
    while not (env.truncations["red"] or env.terminations["red"]):
        env.step(env.legal_actions()[0])
    assert env.truncations == {"red": True, "blue": True} and env.game.ply == 10
    with pytest.raises(RuntimeError):
        env.step(0)


def test_an_illegal_action_raises_and_changes_nothing():
    env = StrategoEnv("barrage")
    env.reset(seed=2)
    illegal = int(np.flatnonzero(~env.action_mask())[0])
    with pytest.raises(IllegalMoveError):
        env.step(illegal)
    assert env.game.ply == 0


def test_gymnasium_spaces():
    import gymnasium  # the [env] extra; .ci/python.sh installs it
    env = StrategoEnv("classic")
    env.reset(seed=0)
    assert env.observation_space("red").contains(env.observe("red"))
    assert env.action_space("red").n == 10000
    assert isinstance(env.action_space("blue"), gymnasium.spaces.Discrete)


def test_the_training_recipe_beats_random_moves():
    """python/examples/train_selfplay.py, on a fixed number of games (repeatable: every
    choice is seeded): 1,500 self-play games, then 200 games against random moves."""
    import importlib.util

    from conftest import PYTHON_DIR

    spec = importlib.util.spec_from_file_location("train_selfplay", PYTHON_DIR / "examples" / "train_selfplay.py")
    recipe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recipe)
    w, games = recipe.train("barrage", 0, 0.5, 1, games_limit=1500, quiet=True)
    assert games == 1500
    trained = recipe.evaluate("barrage", w, 200, 2)
    untrained = recipe.evaluate("barrage", None, 200, 2)
    assert trained[0] >= 140, trained  # measured 157 won, 7 drawn, 36 lost
    assert untrained[0] <= 110, untrained  # random moves: 87, 10, 103
    lo, hi = recipe.wilson(trained[0], 200)
    assert lo > 0.5
