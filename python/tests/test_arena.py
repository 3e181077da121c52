"""stratego.play: two Python bots in this process, no host. The record of a game played
in-process equals the host's record of the same game (same game seed, names and bots):
setups, every ply with its fight, the result in words."""

import importlib.util
import json

import pytest

import stratego
from stratego import Ruleset
from stratego.arena import derive_seed
from stratego.bot import Bot
from stratego.data import read_records

from conftest import CALM_CLOCK, PYTHON_DIR, bot_command, run_host

EXAMPLES = PYTHON_DIR / "examples"


def load(script, cls):
    spec = importlib.util.spec_from_file_location(script.stem, script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, cls)


ExampleBot = load(EXAMPLES / "bot.py", "ExampleBot")
RandomBot = load(EXAMPLES / "random_bot.py", "RandomBot")
BOTS = {"bot": ExampleBot, "random_bot": RandomBot}


def essentials(rec):
    return {
        "deployments": rec.deployments,
        "plies": [p.to_dict() for p in rec.plies],
        "winner": rec.winner,
        "reason": rec.reason,
        "message": rec.message,
        "faulty": rec.faulty,
        "info": rec.info,
        "game_id": rec.game_id,
        "seed": rec.seed,
    }


@pytest.mark.parametrize("rules", ["barrage", "classic"])
def test_a_game_played_in_process_equals_the_hosts_record(host, tmp_path, rules):
    out = tmp_path / "out"
    run_host(
        host, "match", *CALM_CLOCK, bot_command(EXAMPLES / "bot.py"), bot_command(EXAMPLES / "random_bot.py"),
        "--rules", rules, "--games", "2", "--seed", "11", "--out", str(out), "-q",
        # BOTS maps the bots by their command names (not their ready.name).
        "--names-from-commands",
    )
    records = list(read_records(out))
    assert len(records) == 2
    for rec in records:
        assert rec.faulty is None, rec.message  # the host's game ended by the rules
        red, blue = rec.bots["red"], rec.bots["blue"]
        mine = stratego.play(
            BOTS[red](), BOTS[blue](), rec.rules, rec.seed, names=(red, blue), game_id=rec.game_id
        )
        assert len(rec.plies) > 0
        assert essentials(mine) == essentials(rec)
        assert mine.replay() == rec.replay()
        # The in-process record is a record of RECORDS.md's form: it reads back.
        assert essentials(stratego.Record.from_json(mine.to_json())) == essentials(rec)


def test_hello_seeds_are_derived_as_the_host_derives_them():
    # SplitMix64 reference (stratego_protocol::Rng::derive's doc values are checked by the
    # host test above; this pins the arithmetic).
    seen = {}

    class Seeds(Bot):
        def new_game(self, hello):
            seen[self.color] = hello.seed

        def move(self, turn, view):
            return None

    stratego.play(Seeds(), Seeds(), "barrage", 2**64 - 1)
    assert seen == {"red": derive_seed(2**64 - 1, 1), "blue": derive_seed(2**64 - 1, 2)}
    assert seen["red"] != seen["blue"]


class Scripted(Bot):
    def __init__(self, answer):
        self.answer = answer

    def move(self, turn, view):
        return self.answer(view)


def test_faults_and_resignation_end_the_game_as_under_the_host():
    rec = stratego.play(Scripted(lambda v: "a1-a9"), RandomBot(), "barrage", 3, names=("bad", "rnd"))
    assert (rec.winner, rec.reason, rec.faulty) == ("blue", "illegal_move", "red")
    assert rec.message.startswith("bad (Red) forfeits: a1-a9 is illegal: ")
    rec = stratego.play(RandomBot(), Scripted(lambda v: "nonsense"), "barrage", 3, names=("rnd", "bad"))
    assert (rec.winner, rec.reason, rec.faulty) == ("red", "illegal_move", "blue")
    rec = stratego.play(RandomBot(), Scripted(lambda v: None), "barrage", 3, names=("rnd", "quitter"))
    assert (rec.winner, rec.reason, rec.message) == ("red", "resignation", "quitter (Blue) resigned")
    assert len(rec.plies) == 1

    class BadSetup(RandomBot):
        def setup(self, request):
            return "not a setup"

    rec = stratego.play(BadSetup(), RandomBot(), "barrage", 3, names=("bs", "rnd"))
    assert (rec.winner, rec.reason, rec.faulty, rec.deployments["red"]) == ("blue", "invalid_setup", "red", None)


def test_a_moves_view_bot_sees_the_same_game_in_process():
    class MovesRandom(RandomBot):
        view = "moves"

    full = stratego.play(RandomBot(), RandomBot(), "barrage", 9)
    moves = stratego.play(MovesRandom(), MovesRandom(), "barrage", 9)
    assert [p.to_dict() for p in full.plies] == [p.to_dict() for p in moves.plies]
    assert full.winner == moves.winner and full.reason == moves.reason
    json.loads(moves.to_json())
    assert isinstance(Ruleset.preset("barrage"), Ruleset)


def test_unreadable_move_text_forfeits_with_the_hosts_words():
    rec = stratego.play(RandomBot(), Scripted(lambda v: "nonsense"), "barrage", 3, names=("rnd", "bad"))
    assert rec.message == (
        'bad (Blue) forfeits: invalid move "nonsense": expected two square names joined by \'-\', like "e4-e5"'
    )


def test_info_lines_are_recorded_per_bot_and_one_object_cannot_play_both_sides():
    class Talker(RandomBot):
        def move(self, turn, view):
            self.info(f"{self.color} at {view.ply}")
            return super().move(turn, view)

    rec = stratego.play(Talker(), RandomBot(), "barrage", 4)
    assert rec.info["red"][:2] == ["red at 0", "red at 2"] and rec.info["blue"] == []
    bot = RandomBot()
    with pytest.raises(ValueError, match="two bot objects"):
        stratego.play(bot, bot, "barrage", 4)
