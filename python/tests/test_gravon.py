"""The Gravon fixture games (rules/tests/data/gravon, 112 real games and 3 ultimate
lightning ones) replayed from Python, with the same counts rules/tests/gravon_archive.rs
expects; and the rest of that test file."""

from collections import Counter, defaultdict

import pytest

import stratego
from stratego import Deployment, Game, GravonError, GravonGame
from stratego.data import gravon_games, positions, read_gravon

from conftest import GRAVON_FIXTURE


def replay_collection(path):
    """The Rust test's report: per game type, games, plies, illegal moves, results
    (type -> [agreeing, total]) and disagreements; skipped types; unreadable games."""
    types = defaultdict(lambda: {"games": 0, "plies": 0, "illegal": [], "results": defaultdict(lambda: [0, 0]), "disagree": []})
    skipped, unreadable = Counter(), []
    for name, xml in read_gravon(path):
        try:
            g = GravonGame.parse(xml)
        except GravonError as e:
            if 'type="ultimate lightning"' in xml:
                skipped["ultimate lightning"] += 1
            else:
                unreadable.append(f"{name}: {e}")
            continue
        if g.ruleset() is None:
            skipped[g.game_type] += 1
            continue
        try:
            replay = g.replay()
        except GravonError as e:
            unreadable.append(f"{name}: {e}")
            continue
        t = types[g.game_type]
        t["games"] += 1
        t["plies"] += replay.plies
        if replay.illegal is not None:
            t["illegal"].append((name, replay.illegal))
        if g.result is not None:
            kind = g.result[0]
            t["results"][kind][1] += 1
            if replay.agrees:
                t["results"][kind][0] += 1
            else:
                t["disagree"].append((name, g.result, replay.outcome))
    return types, skipped, unreadable


def test_fixture_games_replay_legally_and_their_results_agree():
    types, skipped, unreadable = replay_collection(GRAVON_FIXTURE)
    assert unreadable == []
    assert list(skipped) == ["ultimate lightning"]
    for ty in ["classic", "barrage", "classicfree"]:
        t = types[ty]
        assert t["games"] > 0, ty
        assert t["illegal"] == [], ty
        assert t["disagree"] == [], ty
    classic = types["classic"]
    assert classic["games"] == 100
    assert classic["plies"] == 35_437
    assert (classic["results"][1][1], classic["results"][0][1]) == (38, 5)
    assert types["barrage"]["games"] == 4
    assert types["classicfree"]["games"] == 8
    assert skipped["ultimate lightning"] == 3


def test_fixture_positions_replay_every_move():
    # The data helper's positions are the same replay: as many as the plies of the games
    # it can start (types with a ruleset and at least one move).
    n = 0
    for pos in positions(GRAVON_FIXTURE / "strados2005-1.zip"):
        assert pos.game.is_legal(pos.move)
        n += 1
    want = sum(len(g.moves) for _, g in gravon_games(GRAVON_FIXTURE / "strados2005-1.zip") if g.ruleset() is not None)
    assert n == want > 0


def test_duell_games_replay_under_the_duell_ruleset():
    rules = GravonGame.parse(
        '<stratego><game type="duell"><field content="' + "A" * 42 + "__AA__AAAA__AA__" + "A" * 42 + '"/></game></stratego>'
    ).ruleset()
    assert sum(rules.pieces.values()) == 10
    g = Game(rules, Deployment.random(rules, "red", 11), Deployment.random(rules, "blue", 12))
    g.playout(seed=0x1234_5678_9ABC_DEF1)
    o = g.outcome
    kind = {"flag_captured": 1, "no_legal_moves": 0, "neither_can_move": 2}.get(o.reason, 4)
    winner = {"red": 1, "blue": 2, None: 3}[o.winner]
    xml = GravonGame.from_game("duell", g, (kind, winner)).to_xml()
    back = GravonGame.parse(xml)
    replay = back.replay()
    assert replay.illegal is None
    assert replay.plies == g.ply
    assert replay.outcome == o
    if kind != 4:
        assert replay.agrees
    assert back.moves == [p.move for p in g.history]


def test_only_free_training_games_may_lack_a_flag():
    field = "ABLKEDDCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA__AA__AAAA__AA__AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAYNXWQPPOAA"
    xml = lambda ty: f'<stratego><game type="{ty}"><field content="{field}"/></game></stratego>'  # noqa: E731
    replay = GravonGame.parse(xml("classicfree")).replay()
    assert (replay.plies, replay.illegal) == (0, None)
    with pytest.raises(GravonError, match="^field: Red places no flag; the ruleset requires 1$"):
        GravonGame.parse(xml("barrage")).replay()


def test_gravon_doc_example():
    xml = """<stratego><game type="barrage">
      <field content="MBLKEDDCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA__AA__AAAA__AA__AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAYNXWQPPOAA"/>
      <move id="1" source="D1" target="D2"/>
      <result type="3" winner="2"/></game></stratego>"""
    g = GravonGame.parse(xml)
    assert g.game_type == "barrage"
    assert g.moves[0] == "d1-d2"
    assert (g.result, g.winner) == ((3, 2), "blue")
    red, blue = g.deployments()
    assert len(red) == 8 and len(blue) == 8
    assert GravonGame.parse(g.to_xml()) == g
    with pytest.raises(GravonError, match="no <field content> element"):
        GravonGame.parse('<stratego><game type="classic"></game></stratego>')
    assert isinstance(g.start(), stratego.Game)
