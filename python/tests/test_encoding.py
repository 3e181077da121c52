"""Views as planes (View.planes and stratego.encoding with numpy)."""

import numpy as np

import stratego
from stratego import Game
from stratego.encoding import move_index, planes, stack

CLASSIC_RED = "B32222222S/6655554444/BX98877766/FB3B333B2B"
CLASSIC_BLUE = "FB3B333B2B/BX98877766/6655554444/B32222222S"
P = {name: i for i, name in enumerate(stratego.PLANES)}


def test_plane_names():
    assert len(stratego.PLANES) == 29
    assert stratego.PLANES[:12] == [f"own_{r}" for r in stratego.RANKS]
    assert stratego.PLANES[12:24] == [f"opponent_{r}" for r in stratego.RANKS]
    assert stratego.PLANES[24:] == ["opponent_unknown_unmoved", "opponent_unknown_moved", "own_revealed", "own_moved", "lake"]


def test_planes_of_the_starting_position():
    g = Game("classic", CLASSIC_RED, CLASSIC_BLUE)
    x = planes(g.view("red"))
    assert x.shape == (29, 10, 10) and x.dtype == np.float32
    assert x[P["own_flag"], 0, 0] == 1  # a1, row 0 = rank 1
    assert x[:12].sum() == 40 and x[12:24].sum() == 0
    assert x[P["opponent_unknown_unmoved"]].sum() == 40 and x[P["opponent_unknown_unmoved"], 9].sum() == 10
    assert x[P["lake"]].sum() == 8 and x[P["lake"], 4, 2] == 1  # c5
    # Blue, oriented: its own Flag (a10) is on row 0, column 9 after the half turn.
    y = planes(g.view("blue"))
    assert y[P["own_flag"], 0, 9] == 1
    assert np.array_equal(y[P["lake"]], x[P["lake"]])  # the lakes are symmetric
    z = planes(g.view("blue"), orient=False)
    assert z[P["own_flag"], 9, 0] == 1
    assert np.array_equal(np.frombuffer(g.view("blue").planes(False), np.uint8).reshape(29, 10, 10), z.astype(np.uint8))


def test_planes_follow_what_becomes_known():
    pieces = [("a1", "red", "flag"), ("e4", "red", "marshal"), ("j1", "red", "scout"), ("a10", "blue", "flag"),
              ("e6", "blue", "captain"), ("j10", "blue", "scout"), ("h10", "blue", "bomb"), ("c10", "blue", "sergeant")]
    g = Game.from_position("classic", pieces)
    g.play_all("e4-e5 c10-c9 e5-e6 j10-j7")  # the Marshal takes the Captain; a Scout runs
    x = planes(g.view("red"), orient=False).astype(int)

    def at(name):
        return sorted(zip(*np.nonzero(x[P[name]])))

    assert at("own_marshal") == at("own_moved") == at("own_revealed") == [(5, 4)]  # e6
    assert at("own_flag") == [(0, 0)] and at("own_scout") == [(0, 9)]
    assert x[P["opponent_captain"]].sum() == 0  # captured
    assert at("opponent_scout") == [(6, 9)]  # j7: shown by its long move
    assert at("opponent_unknown_moved") == [(8, 2)]  # c9
    assert at("opponent_unknown_unmoved") == [(9, 0), (9, 7)]  # a10, h10
    # Blue sees the Marshal that fought, not the Scout that never moved.
    y = planes(g.view("blue"), orient=False).astype(int)
    assert y[P["opponent_marshal"], 5, 4] == 1 and y[P["opponent_unknown_unmoved"], 0, 9] == 1
    assert x[:26].sum() == len(g.board()) and y[:26].sum() == len(g.board())


def test_stack_and_move_index():
    g = Game("barrage", stratego.Deployment.random("barrage", "red", 1), stratego.Deployment.random("barrage", "blue", 2))
    views = [g.view("red"), g.view("blue")]
    assert stack(views).shape == (2, 29, 10, 10)
    idx = {move_index(views[0], m) for m in views[0].legal_moves}
    assert len(idx) == len(views[0].legal_moves) and all(0 <= i < 10000 for i in idx)
    m = stratego.Move.parse("a1-a2")
    assert move_index(views[0], m) == 0 * 100 + 10
    assert move_index(views[1], m) == 99 * 100 + 89  # turned half a turn for Blue
