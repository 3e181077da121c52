"""The rules crate's own test vectors (rules/tests/rules.rs, the unit tests of ruleset.rs,
deployment.rs and mv.rs, and the crate's doc examples), reproduced through the Python
package: the same positions, moves and expected answers."""

import pytest

import stratego
from stratego import (
    Combat,
    Deployment,
    DeploymentError,
    Game,
    GameError,
    IllegalMoveError,
    Move,
    Ruleset,
    RulesetError,
)

CLASSIC_RED = "B32222222S/6655554444/BX98877766/FB3B333B2B"
CLASSIC_BLUE = "FB3B333B2B/BX98877766/6655554444/B32222222S"


def free(base: str = "classic", **changes) -> Ruleset:
    """Each side may place any part of the classic army anywhere on the board, with the
    repetition settings of `base` (rules.rs `free`)."""
    spec = Ruleset.preset(base).to_dict()
    spec["exact_counts"] = False
    spec["setup_ranks"] = {"red": [1, 10], "blue": [1, 10]}
    spec.update(changes)
    return Ruleset.from_dict(spec)


def game(rules, red: str, blue: str) -> Game:
    return Game(rules, Deployment.parse(rules, "red", red), Deployment.parse(rules, "blue", blue))


def legal(g: Game) -> list:
    return sorted(str(m) for m in g.legal_moves())


def checked_moves(g: Game) -> list:
    """Every move check_move accepts among all pairs of board squares."""
    squares = g.rules.squares()
    return sorted(f"{a}-{b}" for a in squares for b in squares if g.is_legal(f"{a}-{b}"))


def code_of(g: Game, move: str):
    try:
        g.check_move(move)
    except IllegalMoveError as e:
        return e.code, str(e)
    return None


def fight(attacker: str, defender: str):
    rules = free()
    blue_flag = "" if defender == "flag" else " i10=F"
    g = game(
        rules,
        f"a1=F e4={stratego.rank_code(attacker)} j1=2",
        f"a10=B e5={stratego.rank_code(defender)} j10=2{blue_flag}",
    )
    return g.play("e4-e5"), g


# --- combat ------------------------------------------------------------------------------


def test_combat_spy_attacking_marshal_wins():
    ply, g = fight("spy", "marshal")
    assert ply.combat.result == "attacker_wins"
    assert g.piece_at("e5") == ("red", "spy")
    assert g.captured["blue"]["marshal"] == 1


def test_combat_marshal_attacking_spy_wins():
    assert fight("marshal", "spy")[0].combat.result == "attacker_wins"


def test_combat_spy_loses_any_other_fight():
    assert fight("spy", "general")[0].combat.result == "defender_wins"
    assert fight("scout", "spy")[0].combat.result == "attacker_wins"
    assert fight("spy", "spy")[0].combat.result == "both_removed"


def test_combat_miner_defuses_bomb():
    ply, g = fight("miner", "bomb")
    assert ply.combat.result == "attacker_wins"
    assert g.piece_at("e5") == ("red", "miner")


def test_combat_other_pieces_die_on_a_bomb():
    for r in ["spy", "scout", "sergeant", "general", "marshal"]:
        ply, g = fight(r, "bomb")
        assert ply.combat.result == "defender_wins", r
        assert g.piece_at("e5") == ("blue", "bomb")
        assert g.piece_at("e4") is None


def test_combat_equal_ranks_remove_both():
    ply, g = fight("major", "major")
    assert ply.combat.result == "both_removed"
    assert g.piece_at("e5") is None and g.piece_at("e4") is None
    assert (g.captured["red"]["major"], g.captured["blue"]["major"]) == (1, 1)


def test_combat_higher_rank_wins_either_way():
    assert fight("colonel", "major")[0].combat.result == "attacker_wins"
    ply, g = fight("major", "colonel")
    assert ply.combat.result == "defender_wins"
    assert g.piece_at("e5") == ("blue", "colonel")


def test_combat_capturing_the_flag_wins_the_game():
    ply, g = fight("scout", "flag")
    assert ply.combat.flag_captured
    assert (g.outcome.winner, g.outcome.reason) == ("red", "flag_captured")
    assert code_of(g, "j10-j9")[0] == "game_over"


def test_combat_resolve_doc_examples():
    assert Combat.resolve("spy", "marshal").result == "attacker_wins"
    assert Combat.resolve("marshal", "spy").result == "attacker_wins"
    assert Combat.resolve("major", "bomb").result == "defender_wins"
    assert Combat.resolve("X", "S").attacker == "marshal"  # codes work too


# --- movement ----------------------------------------------------------------------------


def test_scout_rays_stop_at_lakes_pieces_and_the_edge():
    g = game(free(), "a1=F b5=2 b9=4 b1=B", "j10=F j9=4")
    scout = [m for m in legal(g) if m.startswith("b5-")]
    assert scout == ["b5-a5", "b5-b2", "b5-b3", "b5-b4", "b5-b6", "b5-b7", "b5-b8"]
    assert code_of(g, "b5-d5") == ("blocked_by_lake", "the way is blocked by the lake on c5")
    assert code_of(g, "b5-b10") == ("blocked_path", "the way is blocked by the piece on b9")


def test_scout_attacks_at_the_end_of_a_ray():
    g = game(free(), "a1=F e2=2", "j10=F e9=4")
    assert "e2-e9" in legal(g)
    assert g.play("e2-e9").combat.result == "defender_wins"


def test_scout_move_and_attack_can_be_switched_off():
    g = game(free(scout_move_and_attack=False), "a1=F e2=2", "j10=F e9=4 e3=4")
    assert "e2-e3" in legal(g)
    g = game(free(scout_move_and_attack=False), "a1=F e2=2", "j10=F e9=4")
    assert "e2-e9" not in legal(g)
    assert "e2-e8" in legal(g)
    assert code_of(g, "e2-e9")[0] == "scout_move_and_attack"


def test_immobile_pieces_never_move():
    g = game(free(), "a1=F a2=B e4=4", "j10=F j9=4")
    assert all(m.startswith("e4") for m in legal(g))
    assert code_of(g, "a1-b1") == ("immobile_piece", "the flag on a1 cannot move")
    assert code_of(g, "a2-a3") == ("immobile_piece", "the bomb on a2 cannot move")


def test_checked_moves_explain_every_illegal_move():
    g = game(free(), "a1=F e4=4 f4=4 b5=2", "j10=F e5=4")
    cases = {
        "e4-e5": None,
        "e3-e4": "no_piece",
        "e5-e6": "not_your_piece",
        "e4-f5": "not_straight",
        "e4-e6": "too_far",
        "e4-f4": "onto_own_piece",
        "b5-c5": "blocked_by_lake",
        "e4-k4": "off_board",
        "e4-e4": "same_square",
    }
    for m, want in cases.items():
        got = code_of(g, m)
        assert (got[0] if got else None) == want, m
    assert g.is_legal("e4-e5") and not g.is_legal("e4-e6")
    # An illegal move leaves the game unchanged.
    with pytest.raises(IllegalMoveError, match="a sergeant moves only one square"):
        g.play("e4-e6")
    assert g.ply == 0 and g.to_move == "red"


# --- the two-square rule -----------------------------------------------------------------


def test_two_square_rule_classic_allows_five_and_forbids_the_sixth():
    g = game(free(), "a1=F e4=7 j1=7", "a10=F e9=7 j9=7")
    g.play_all("e4-e5 e9-e8 e5-e4 e8-e9 e4-e5 e9-e8 e5-e4 j9-j8 e4-e5 j8-j9")
    assert code_of(g, "e5-e4") == (
        "two_square_rule",
        "two-square rule: this piece has already moved 5 times in a row between these squares",
    )
    assert "e5-e4" not in legal(g)
    assert legal(g) == checked_moves(g)
    assert "e5-e6" in legal(g)
    g.play_all("j1-j2 e8-e7 e5-e4")


def test_two_square_rule_isf_allows_three_and_forbids_the_fourth():
    g = game(free("isf", more_squares=False), "a1=F e4=7", "a10=F e9=7 j9=7")
    g.play_all(["e4-e5", "e9-e8", "e5-e4", "j9-j8", "e4-e5", "j8-j9"])
    assert code_of(g, "e5-e4")[0] == "two_square_rule"
    assert "limit" not in code_of(g, "e5-e4")[1] and "3 times" in code_of(g, "e5-e4")[1]


def test_two_square_rule_scout_path_counts_moves_within_the_stretch():
    moves = "a8-e8 j10-j9 e8-b8 j9-j10 b8-d8 j10-j9"
    g = game(free("isf", more_squares=False), "a1=F a8=2", "a10=F j10=4")
    g.play_all(moves)
    assert code_of(g, "d8-a8")[0] == "two_square_rule"
    assert code_of(g, "d8-d7") is None
    g = game(free(two_square_limit=3), "a1=F a8=2", "a10=F j10=4")
    g.play_all(moves)
    assert code_of(g, "d8-a8") is None


def test_two_square_rule_scout_shuttling_exactly_counts_under_classic():
    g = game(free(), "a1=F a8=2", "a10=F j10=4 j1=4")
    g.play_all("a8-e8 j10-j9 e8-a8 j9-j10 a8-e8 j10-j9 e8-a8 j9-j10 a8-e8 j1-j2")
    assert code_of(g, "e8-a8")[0] == "two_square_rule"
    assert code_of(g, "e8-b8") is None


# --- the more-squares (chasing) rule -----------------------------------------------------

RING = ["b7", "c7", "d7", "e7", "e6", "e5", "e4", "d4", "c4", "b4", "b5", "b6"]


def chase_game(more_squares: bool) -> Game:
    g = game(free("isf", more_squares=more_squares, two_square_limit=None), "a1=F a7=7", "j10=F c7=6")
    g.play("a7-b7")
    for i in range(12):
        g.play(f"{RING[(i + 1) % 12]}-{RING[(i + 2) % 12]}")
        if i < 11:
            g.play(f"{RING[i]}-{RING[i + 1]}")
    return g


def test_chasing_rule_forbids_recreating_a_position_of_the_chase():
    g = chase_game(True)
    assert g.piece_at("c7") == ("blue", "captain")
    assert code_of(g, "b6-b7") == (
        "chasing_rule",
        "more-squares rule: this chasing move repeats a position already seen during the chase",
    )
    assert "b6-b7" not in legal(g)
    assert legal(g) == checked_moves(g)
    assert code_of(g, "b6-a6") is None
    assert code_of(chase_game(False), "b6-b7") is None


def test_chasing_rule_allows_returning_to_the_square_just_left():
    g = game(free("isf", two_square_limit=None), "a1=F e6=7", "j10=F e8=6")
    g.play_all("e6-e7 e8-f8 e7-f7 f8-e8")
    assert code_of(g, "f7-e7") is None


# --- endings -----------------------------------------------------------------------------


def test_end_flag_captured():
    g = game(free(), "a1=F j9=4", "j10=F a10=4")
    g.play("j9-j10")
    assert (g.outcome.winner, g.outcome.reason) == ("red", "flag_captured")
    assert g.legal_moves() == [] and g.is_over


def test_end_no_legal_moves_loses():
    g = game(free(), "a1=F e4=9 e3=8", "j10=F e5=4 j9=B")
    g.play("e4-e5")
    assert (g.outcome.winner, g.outcome.reason) == ("red", "no_legal_moves")


def test_end_no_legal_moves_when_walled_in():
    g = game(free(), "a1=F e4=9", "j10=4 i10=B j9=F")
    assert (g.outcome.winner, g.outcome.reason) == ("red", "no_legal_moves")


def test_end_neither_can_move_is_a_draw():
    g = game(free(), "a1=F e4=7", "j10=F e5=7")
    g.play("e4-e5")
    assert (g.outcome.winner, g.outcome.reason, g.outcome.is_draw) == (None, "neither_can_move", True)


def test_end_ply_limit_is_a_draw():
    g = game(free(ply_limit=3), "a1=F e4=7", "j10=F e9=7")
    g.play_all("e4-e5 e9-e8")
    assert g.outcome is None
    g.play("e5-e6")
    assert (g.outcome.winner, g.outcome.reason) == (None, "ply_limit")


def test_end_sealed_flags_is_a_draw_only_when_no_capture_is_possible():
    rules = free(sealed_flags_draw=True)
    g = game(rules, "a1=F b1=B a2=B e4=3 g1=7", "j10=F i10=B j9=B e5=7 e9=7")
    assert g.outcome is None
    g.play("e4-e5")
    assert (g.outcome.winner, g.outcome.reason) == (None, "sealed_flags")
    assert g.flag_sealed_from("red") and g.flag_sealed_from("blue")
    g = game(rules, "a1=F b1=B a2=B e4=7", "j10=F i10=B j9=B e9=3")
    g.play("e4-e5")
    assert g.outcome is None
    g = game(rules, "a1=F b1=B e4=7", "j10=F i10=B j9=B e9=7")
    g.play("e4-e5")
    assert g.outcome is None


def test_sealed_flags_is_off_in_every_preset():
    for name in stratego.PRESETS:
        assert not Ruleset.preset(name).sealed_flags_draw


# --- setups ------------------------------------------------------------------------------


def test_free_setup_without_a_flag_is_rejected():
    rules = free()
    assert not rules.exact_counts
    with pytest.raises(DeploymentError, match="^Red places no flag; the ruleset requires 1$"):
        Deployment.parse(rules, "red", "e4=4 j1=2 a1=B")
    with pytest.raises(DeploymentError, match="^Blue places 2 flags; the ruleset allows 1$"):
        Deployment.parse(rules, "blue", "a10=F b10=F e9=4")


def test_exact_setup_without_a_flag_names_the_flag():
    with pytest.raises(DeploymentError, match="^Red places no flag; the ruleset requires 1$"):
        Deployment.parse("classic", "red", "B32222222S/6655554444/BX98877766/.B3B333B2B")
    with pytest.raises(DeploymentError, match="^Red places no piece$"):
        Deployment("classic", "red", [])
    with pytest.raises(DeploymentError, match="^Blue places no piece$"):
        Deployment(free(), "blue", {})


def test_free_setup_with_its_flag_and_fewer_other_pieces_is_accepted():
    rules = free()
    assert len(Deployment.parse(rules, "red", "a1=F e4=4 b1=B")) == 3
    g = Game(rules, Deployment.parse(rules, "red", "a1=F"), Deployment.parse(rules, "blue", "j10=F e9=4"))
    assert (g.outcome.winner, g.outcome.reason) == ("blue", "no_legal_moves")


def test_deployment_rows_and_pairs_round_trip():
    rules = Ruleset.preset("classic")
    d = Deployment.parse(rules, "red", CLASSIC_RED)
    assert d.to_rows() == CLASSIC_RED
    assert Deployment.parse(rules, "red", d.to_pairs()) == d
    blue = Deployment.parse(rules, "blue", CLASSIC_RED)
    assert blue.rank_at("a10") == "bomb"
    assert blue.to_rows() == CLASSIC_RED
    assert d.rank_at("a1") == "flag"
    b = Ruleset.preset("barrage")
    d = Deployment.parse(b, "red", "a1=F b1=B c2=X d2=9 e2=3 f3=2 g3=2 h4=S")
    assert Deployment.parse(b, "red", d.to_rows()) == d
    assert Deployment(b, "red", d.to_dict()) == d
    assert Deployment(b, "red", d.pieces) == d


def test_deployment_errors_name_the_square_or_count():
    b = Ruleset.preset("barrage")
    cases = [
        ("a1=F b1=B c2=X d2=9 e5=3 f3=2 g3=2 h4=S", "square e5 is outside Red's setup area"),
        ("a1=F a1=B c2=X d2=9 e2=3 f3=2 g3=2 h4=S", "square a1 is given twice"),
        ("a1=F b1=B c2=X d2=9 e2=3 f3=2 g3=2 h4=2", "Red places 3 scouts; the ruleset allows 2"),
        ("a1=F b1=B c2=X d2=9 e2=3 f3=2 g3=2", "Red places no spy; the ruleset requires 1"),
        ("a1=F b1=Q", 'square b1: unknown piece "Q"'),
        ("a1=F b1", '"b1" is not square=piece, like a1=F'),
    ]
    for text, want in cases:
        with pytest.raises(DeploymentError) as e:
            Deployment.parse(b, "red", text)
        assert str(e.value) == want
    c = Ruleset.preset("classic")
    rows = [
        ("B32222222S/6655554444/BX98877766", "3 rows given; Red's setup area has 4 (ranks 4 down to 1, separated by '/')"),
        ("B32222222S/665555444/BX98877766/FB3B333B2B", "row 2 (rank 3) has 9 squares; the board is 10 wide"),
        ("B32222222S/6655554444/BX98877766/FB3B333B2Z", "square j1: unknown piece code 'Z' (use F S 2-9 X B, or . for empty)"),
        ("BBBBBBBBB2/2222222333/3344445555/666677789X", None),
    ]
    for text, want in rows:
        with pytest.raises(DeploymentError) as e:
            Deployment.parse(c, "red" if want else "blue", text)
        if want:
            assert str(e.value) == want
        else:
            assert str(e.value) == "Blue places 9 bombs; the ruleset allows 6"


def test_random_deployments_are_valid_and_seeded():
    for name in stratego.PRESETS:
        for color in stratego.COLORS:
            d = Deployment.random(name, color, 7)
            assert Deployment.parse(name, color, d.to_rows()) == d
            assert d == Deployment.random(name, color, 7)
    assert len(Deployment.random("classic", "blue", 7)) == 40
    assert Deployment.random("classic", "red", 1) != Deployment.random("classic", "red", 2)


# --- rulesets ----------------------------------------------------------------------------


def test_presets_match_the_rule_book_table():
    c = Ruleset.preset("classic")
    assert (sum(c.pieces.values()), c.two_square_limit, c.scout_path, c.more_squares) == (40, 5, False, False)
    assert (c.scout_move_and_attack, c.ply_limit, c.sealed_flags_draw) == (True, 2000, False)
    i = Ruleset.preset("isf")
    assert (sum(i.pieces.values()), i.two_square_limit, i.scout_path, i.more_squares) == (40, 3, True, True)
    b = Ruleset.preset("barrage")
    assert (sum(b.pieces.values()), b.two_square_limit, b.ply_limit) == (8, 5, 1000)
    assert b.pieces == {"marshal": 1, "general": 1, "miner": 1, "scout": 2, "spy": 1, "bomb": 1, "flag": 1}
    u = Ruleset.preset("ucc2012")
    assert (sum(u.pieces.values()), u.two_square_limit, u.ply_limit) == (40, None, 2000)
    assert Ruleset("ucc2012") == u
    assert len(c.setup_squares("red")) == 40
    assert c.is_lake("c5") and c.is_lake("h6") and not c.is_lake("e5")
    assert c.lakes == ["c5", "d5", "c6", "d6", "g5", "h5", "g6", "h6"]
    assert c.setup_ranks == {"red": (1, 4), "blue": (7, 10)}
    assert c.in_setup_area("red", "a1") and not c.in_setup_area("red", "a5")
    assert len(c.squares()) == 92


def test_rulesets_round_trip_through_json_and_files(tmp_path):
    for name in stratego.PRESETS:
        r = Ruleset.preset(name)
        assert Ruleset.from_json(r.to_json()) == r
        assert Ruleset.from_dict(r.to_dict()) == r
        p = tmp_path / f"{name}.json"
        p.write_text(r.to_json())
        assert Ruleset.from_file(p) == r
        assert r.pieces["flag"] == 1
    with pytest.raises(RulesetError, match="unknown ruleset"):
        Ruleset.preset("chess")


def test_every_invalid_ruleset_field_is_named():
    cases = [
        ('{"width": 16}', "width: 16 is outside the supported range 2 to 15"),
        ('{"lakes": ["k5"]}', "lakes: square k5 is outside the 10x10 board"),
        ('{"lakes": ["c5", "c5"]}', "lakes: square c5 is listed twice"),
        ('{"pieces": {"scout": 50, "flag": 1}}', "pieces: 51 pieces do not fit in Red's setup area of 40 squares"),
        ('{"pieces": {"bomb": 3, "flag": 1}}', "pieces: the army has no movable piece; it needs at least one (bombs and flags never move)"),
        ('{"pieces": {"scout": 3, "flag": 2}}', "pieces: the army has 2 flags; it needs exactly one"),
        (
            '{"width": 2, "height": 2, "lakes": ["a1", "b1"], "setup_ranks": {"red": [1, 1], "blue": [2, 2]}}',
            "setup_ranks: Red's ranks 1 to 1 are all lakes; no piece can be placed",
        ),
        ('{"pieces": {}}', "pieces: the army is empty"),
        ('{"setup_ranks": {"red": [0, 4], "blue": [7, 10]}}', "setup_ranks: Red's ranks 0 to 4 are not a range within 1 to 10"),
        ('{"two_square_limit": 0}', "two_square_limit: must be at least 1, or null for no limit"),
        ('{"ply_limit": 0}', "ply_limit: must be at least 1, or null for no limit"),
        ('{"pieces": {"marshal": 1, "scout": 2, "flag": 0}}', "pieces: the army has no flag; it needs exactly one (without it no game can be won by capture)"),
    ]
    for text, want in cases:
        with pytest.raises(RulesetError) as e:
            Ruleset.from_json(text)
        assert str(e.value) == want, text
    with pytest.raises(RulesetError) as e:
        Ruleset.from_json('{\n  "widht": 8\n}')
    assert "unknown field `widht`" in str(e.value) and "line 2" in str(e.value)
    with pytest.raises(RulesetError, match='unknown piece "knight"'):
        Ruleset.from_json('{"pieces": {"knight": 1}}')


def test_six_by_six_board_plays():
    rules = Ruleset.from_json(
        '{"name": "mini", "width": 6, "height": 6, "lakes": ["c3", "d4"],'
        ' "setup_ranks": {"red": [1, 2], "blue": [5, 6]},'
        ' "pieces": {"marshal": 1, "scout": 2, "miner": 1, "spy": 1, "flag": 1}}'
    )
    g = game(rules, "a1=F b1=X c1=2 d1=2 e1=3 f1=S", "a6=F b6=X c6=2 d6=2 e6=3 f6=S")
    assert "c1-c2" in legal(g)
    assert "c1-c3" not in legal(g)
    assert "d1-d3" in legal(g)
    assert code_of(g, "d1-d5")[0] == "blocked_by_lake"
    g.play("b1-b2")


# --- positions ---------------------------------------------------------------------------


def test_from_position_rebuilds_a_played_position():
    rules = Ruleset.preset("classic")
    g = Game(rules, Deployment.random(rules, "red", 77), Deployment.random(rules, "blue", 78))
    assert g.playout(seed=5, max_plies=50) == 50
    view = g.view("red")
    pieces = [(sq, c, r, view.piece_at(sq).moved, view.piece_at(sq).revealed) for sq, c, r in g.board()]
    copy = Game.from_position(rules, pieces, g.to_move, g.ply, g.captured)
    assert copy.ply == 50
    assert copy.board() == g.board()
    assert set(map(str, g.legal_moves())) <= set(map(str, copy.legal_moves()))
    with pytest.raises(GameError, match="both sides place a piece on"):
        Game.from_position(rules, [pieces[0], pieces[0]])
    with pytest.raises(GameError, match="square c5 is not a playable square"):
        Game.from_position(rules, [("c5",) + pieces[0][1:]])
    as_dicts = [{"square": p[0], "color": p[1], "rank": p[2], "moved": p[3]} for p in pieces]
    assert Game.from_position(rules, as_dicts, g.to_move).board() == g.board()


def test_scouts_on_the_largest_open_board_get_every_move():
    spec = Ruleset.preset("classic").to_dict()
    spec.update(name="open15", width=15, height=15, lakes=[], setup_ranks={"red": [1, 7], "blue": [9, 15]})
    rules = Ruleset.from_dict(spec)
    files = "abcdefghijklmno"
    pieces = [(f"{files[i]}{i + 1}", "red", "scout") for i in range(15)]
    pieces += [("o1", "blue", "flag"), ("a15", "blue", "scout")]
    # Fifteen Scouts and no Red Flag: beyond the classic army, a stress position.
    g = Game.from_position(rules, pieces, "red", check_army=False)
    assert len(legal(g)) > 400
    assert legal(g) == checked_moves(g)


# --- the crate's doc example, moves and copies -------------------------------------------


def test_the_crate_doc_example():
    rules = Ruleset.preset("classic")
    g = Game(rules, CLASSIC_RED, CLASSIC_BLUE)
    moves = g.legal_moves()
    assert "b4-b5" in moves and "a4-a5" not in moves
    with pytest.raises(IllegalMoveError, match="^the flag on a1 cannot move$"):
        g.play("a1-a2")
    g.play(Move("b4", "b5"))
    assert g.to_move == "blue"
    while not g.is_over and g.ply < 100:
        ms = g.legal_moves()
        g.play(ms[g.ply % len(ms)])
    assert g.ply == 100 or g.is_over


def test_moves_are_values_equal_to_their_text():
    m = Move.parse("b4-b5")
    assert m == "b4-b5" and "b4-b5" == m and m == Move("b4", "b5") and m != "b4-b6"
    assert hash(m) == hash("b4-b5") and {m: 1}["b4-b5"] == 1
    assert (m.from_square, m.to_square, m.distance, str(m)) == ("b4", "b5", 1, "b4-b5")
    assert Move.parse("b4-b5") is Move.parse("b4-b5")  # interned
    with pytest.raises(ValueError, match='invalid move "b4b5"'):
        Move.parse("b4b5")
    with pytest.raises(ValueError, match='invalid square name "k11x"'):
        Move("k11x", "a1")
    import pickle

    assert pickle.loads(pickle.dumps(m)) == m


def test_copies_are_independent():
    g = Game("classic", CLASSIC_RED, CLASSIC_BLUE)
    c = g.copy()
    c.play("b4-b5")
    assert (g.ply, c.ply) == (0, 1)
    import copy

    assert copy.deepcopy(c).history == c.history
    assert c.last_ply == c.history[-1] and c.history[0].move == "b4-b5"
    assert g.position_hash != c.position_hash


def test_rank_helpers():
    assert stratego.strength("marshal") == 10 and stratego.strength("bomb") is None
    assert stratego.rank_code("marshal") == "X" and stratego.rank_from_code("S") == "spy"
    assert stratego.is_mobile("scout") and not stratego.is_mobile("flag")
    assert stratego.RANKS[0] == "flag" and stratego.RANKS[-1] == "bomb" and len(stratego.RANKS) == 12
    assert stratego.opponent("red") == "blue"
    with pytest.raises(ValueError, match="unknown piece"):
        stratego.strength("knight")
