"""print(game) and print(view): the board as stratego-host's `replay` prints it (the same
lines, compared with the host's own output for the same game and ply)."""

import stratego
from stratego import Deployment, Game, Ruleset
from stratego.data import read_records

from conftest import CALM_CLOCK, run_host

AS = {"spectator": None, "red": "red", "blue": "blue"}


def host_frame(host, out, game_id, ply, viewer):
    text = run_host(host, "replay", str(out), "--game", game_id, "--ply", str(ply), "--as", viewer).stdout
    return text.splitlines()


def test_the_board_is_the_hosts_replay_board(host, tmp_path):
    out = tmp_path / "out"
    run_host(host, "match", *CALM_CLOCK, "sample-bot", "sample-bot --strategy random", "--games", "2", "--seed", "4",
             "--out", str(out), "-q")
    rec = next(iter(read_records(out)))
    h = rec.rules.height
    plies = len(rec.plies)
    compared = 0
    for ply in sorted({0, 1, 7, plies // 2, plies}):
        game = rec.start()
        for p in rec.plies[:ply]:
            game.play(p.move)
        for viewer, color in AS.items():
            host_lines = host_frame(host, out, rec.game_id, ply, viewer)
            mine = str(game if color is None else game.view(color)).splitlines()
            # Title, "View: …", a blank line, then the board (files, ranks, files).
            assert mine[: h + 2] == host_lines[3 : 3 + h + 2], (ply, viewer)
            # The losses, a line per side.
            lost = [line for line in host_lines if " lost " in line]
            assert [line for line in mine if " lost " in line] == lost
            compared += 1
    assert compared >= 9
    # A side's view hides what it does not know; the spectator's shows every rank.
    start = rec.start()
    assert "b?" in str(start.view("red")) and "r?" not in str(start.view("red"))
    assert "?" not in str(start).split("\n\n")[0]


def test_the_text_says_the_last_ply_who_moves_and_the_result():
    rules = Ruleset.preset("classic")
    g = Game.from_position(rules, [("a1", "red", "flag"), ("e4", "red", "marshal"), ("e5", "blue", "scout"),
                                   ("a9", "blue", "sergeant"), ("j10", "blue", "flag")])
    assert str(g).splitlines()[-4:] == ["Ply 0: Red to move", "Red lost nothing", "Blue lost nothing", "Red to move"]
    g.play("e4-e5")
    lines = str(g).splitlines()
    assert lines[-4:] == [
        "Ply 1: Red e4-e5, marshal (X) attacks scout (2): marshal wins",
        "Red lost nothing",
        "Blue lost 1: 2",
        "Blue to move",
    ]
    assert lines[0] == "    a  b  c  d  e  f  g  h  i  j"
    assert lines[1] == "10  .  .  .  .  .  .  .  .  . bF 10"
    blue = str(g.view("blue")).splitlines()
    assert blue[0] == "    j  i  h  g  f  e  d  c  b  a"  # Blue's eyes: turned around
    assert blue[1] == " 1  .  .  .  .  .  .  .  .  . r? 1"
    assert " rX " in blue[5]  # the Marshal was revealed by its fight
    r = Ruleset.preset("barrage")
    done = Game(r, Deployment.random(r, "red", 1), Deployment.random(r, "blue", 2))
    done.playout(3)
    assert str(done).splitlines()[-1].startswith("Result: ")
