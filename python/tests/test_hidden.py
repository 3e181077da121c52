"""Hidden information: View.unseen() (the pool of enemy ranks not yet seen) and
View.sample_world(rng) (a full position that agrees with everything the viewer knows), and
Game.from_position's check of each army against the ruleset."""

import random
from collections import Counter

import pytest

import stratego
from stratego import Deployment, Game, GameError, Ruleset


def played(rules, seed, plies):
    """A game of random moves from random setups, `plies` in (or to its end)."""
    r = Ruleset.preset(rules)
    g = Game(r, Deployment.random(r, "red", seed), Deployment.random(r, "blue", seed + 1000))
    rng = random.Random(seed)
    while not g.is_over and g.ply < plies:
        g.play(rng.choice(g.legal_moves()))
    return g


def expected_unseen(game, viewer):
    opp = stratego.opponent(viewer)
    pool = Counter(game.rules.pieces)
    pool.subtract(game.captured[opp])
    for p in game.view(viewer).opponent_pieces():
        if p.rank is not None:
            pool[p.rank] -= 1
    return {r: n for r, n in pool.items() if n > 0}


def test_unseen_is_the_army_less_what_was_lost_and_seen():
    g = played("classic", 1, 0)
    assert g.view("red").unseen() == g.rules.pieces
    checked = 0
    for seed in range(6):
        g = played("classic", seed, 150)
        for viewer in ("red", "blue"):
            view = g.view(viewer)
            assert view.unseen() == expected_unseen(g, viewer)
            known = [p for p in view.opponent_pieces() if p.rank is not None]
            checked += len(known)
        assert sum(g.view("red").unseen().values()) == sum(
            1 for p in g.view("red").opponent_pieces() if p.rank is None
        )  # classic has exact counts: one unseen rank per unknown piece
    assert checked > 0  # some ranks were seen


@pytest.mark.parametrize("rules", ["classic", "barrage"])
def test_sampled_worlds_agree_with_the_view(rules):
    worlds = 0
    flag_squares = set()
    for seed in range(5):
        g = played(rules, seed, 120 if rules == "classic" else 24)
        if g.is_over:
            continue
        for viewer in ("red", "blue"):
            view = g.view(viewer)
            unknown = {p.square: p for p in view.opponent_pieces() if p.rank is None}
            long_movers = {p.move.to_square for p in view.history if p.move.distance > 1}
            for k in range(20):
                world = view.sample_world(seed * 100 + k)
                worlds += 1
                # Everything the viewer knows is the same in the sampled world.
                assert world.view(viewer).pieces == view.pieces
                assert world.captured == view.captured and world.to_move == view.to_move
                assert world.ply == view.ply
                opp_ranks = Counter()
                for sq, color, rank in world.board():
                    p = view.piece_at(sq)
                    assert p is not None and p.color == color
                    if p.rank is not None:
                        assert rank == p.rank  # own pieces and revealed ranks fixed
                    if p.moved:
                        assert rank not in ("bomb", "flag"), (sq, rank)
                    if color != viewer:
                        opp_ranks[rank] += 1
                    if sq in unknown and rank == "flag":
                        flag_squares.add((seed, viewer, sq))
                # A Scout that ran is a Scout (it is known, and stays one).
                for sq in long_movers:
                    if world.piece_at(sq) and view.piece_at(sq).moved and view.piece_at(sq).rank == "scout":
                        assert world.piece_at(sq)[1] == "scout"
                # The opponent's army: no rank more often than the ruleset allows.
                for rank, n in opp_ranks.items():
                    assert n + view.captured[stratego.opponent(viewer)].get(rank, 0) <= g.rules.pieces[rank]
                world.legal_moves()  # a playable game
    assert worlds >= 100
    assert len(flag_squares) > 10  # the Flag is dealt to different unknown pieces


def test_a_scout_that_ran_is_a_scout_in_every_world():
    rules = Ruleset.preset("classic")
    pieces = [("a1", "red", "flag"), ("e4", "red", "marshal"), ("a10", "blue", "flag"),
              ("j10", "blue", "scout"), ("h10", "blue", "bomb"), ("c10", "blue", "sergeant")]
    g = Game.from_position(rules, pieces)
    g.play_all("e4-e5 j10-j6")
    view = g.view("red")
    assert view.piece_at("j6").rank == "scout"
    assert view.unseen()["scout"] == 7
    for k in range(30):
        w = view.sample_world(random.Random(k))
        assert w.piece_at("j6") == ("blue", "scout")
        assert {w.piece_at(s)[1] for s in ("a10", "h10", "c10")} <= set(rules.pieces)


def test_sample_world_takes_a_seed_or_a_random_and_repeats():
    view = played("classic", 3, 80).view("blue")
    assert view.sample_world(5).board() == view.sample_world(5).board()
    assert view.sample_world(random.Random(1)).board() == view.sample_world(random.Random(1)).board()
    boards = {tuple(view.sample_world(k).board()) for k in range(10)}
    assert len(boards) > 1
    with pytest.raises(ValueError, match="rng must be an int seed or a random.Random"):
        view.sample_world("x")


def test_from_position_checks_each_army():
    rules = Ruleset.preset("classic")
    nine_scouts = [(f"{f}1", "red", "scout") for f in "abcdefghi"] + [("a2", "red", "flag"), ("a10", "blue", "flag")]
    with pytest.raises(GameError, match=r"Red has 9 scouts: 9 on the board and 0 captured, but the classic army has 8"):
        Game.from_position(rules, nine_scouts)
    eight = nine_scouts[1:]
    Game.from_position(rules, eight)
    with pytest.raises(GameError, match=r"Red has 9 scouts: 8 on the board and 1 captured"):
        Game.from_position(rules, eight, captured={"red": {"scout": 1}})
    with pytest.raises(GameError, match=r"Blue has 2 marshals"):
        Game.from_position(rules, eight + [("b10", "blue", "marshal"), ("c10", "blue", "marshal")])
    with pytest.raises(GameError, match=r"Blue has no flag on the board"):
        Game.from_position(rules, eight[:-1] + [("b10", "blue", "marshal")])
    # A study position beyond the army, on purpose.
    Game.from_position(rules, nine_scouts, check_army=False)
