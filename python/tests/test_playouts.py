"""Random playouts run in Rust (the batch API); speed is measured by bench/bench.py, not
here."""

import pytest

import stratego
from stratego import Deployment, Game


def test_random_playouts_add_up_and_repeat_with_the_seed():
    a = stratego.random_playouts("barrage", 50, seed=4)
    assert a == stratego.random_playouts(stratego.Ruleset.preset("barrage"), 50, seed=4)
    assert a != stratego.random_playouts("barrage", 50, seed=5)
    assert a["games"] == 50 and a["unfinished"] == 0
    assert a["red_wins"] + a["blue_wins"] + a["draws"] == 50
    assert sum(a["reasons"].values()) == 50
    assert a["plies"] > 50
    capped = stratego.random_playouts("classic", 10, seed=4, max_plies=30)
    assert capped["plies"] <= 300 and capped["unfinished"] + sum(capped["reasons"].values()) == 10


def test_fixed_setups_and_playouts_from_a_position():
    red = Deployment.random("classic", "red", 1)
    blue = Deployment.random("classic", "blue", 2)
    fixed = stratego.random_playouts("classic", 5, seed=1, red=red, blue=blue.to_rows())
    assert fixed["games"] == 5
    g = Game("classic", red, blue)
    g.play_all(g.legal_moves()[:1])
    stats = g.random_playouts(20, seed=3)
    assert stats["games"] == 20 and g.ply == 1  # the game itself is unchanged
    c = g.copy()
    n = c.playout(seed=3)
    assert c.ply == 1 + n and c.is_over
    # The same seed plays the same game, and a game replays its own history legally.
    d = g.copy()
    assert d.playout(seed=3) == n and d.history == c.history
    e = Game("classic", red, blue)
    for ply in c.history:
        assert e.play(ply.move) == ply
    assert e.outcome == c.outcome
    with pytest.raises(stratego.RulesetError):
        stratego.random_playouts("chess", 1)
