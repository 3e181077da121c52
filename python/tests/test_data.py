"""Records files and --out directories as replayed positions (stratego.data), on records a
real stratego-host match wrote."""

import json

import pytest

import stratego
from stratego import Record, RecordError
from stratego.data import positions, read_records

from conftest import run_host


@pytest.fixture(scope="module")
def match_dir(host, tmp_path_factory):
    out = tmp_path_factory.mktemp("records")
    run_host(host, "match", "sample-bot", "sample-bot --strategy random", "--games", "4", "--seed", "9",
             "--rules", "barrage", "--out", str(out), "-q")
    return out


def test_records_read_and_replay(match_dir):
    records = list(read_records(match_dir))
    assert [r.index for r in records] == [0, 1, 2, 3]
    for rec in records:
        assert rec.rules == stratego.Ruleset.preset("barrage")
        outcome = rec.replay()
        if rec.reason in ("flag_captured", "no_legal_moves", "neither_can_move", "ply_limit"):
            assert outcome is not None and outcome.reason == rec.reason and outcome.winner == rec.winner
        game = rec.start()
        for ply in rec.plies:
            assert game.play(ply.move) == ply  # the recorded fight is the rules' fight
        assert len(rec.times_us) == len(rec.plies)
        assert Record.from_json(rec.to_json()).to_json() == rec.to_json()
    # The file itself, and the directory, read the same.
    assert [r.game_id for r in read_records(match_dir / "games.jsonl")] == [r.game_id for r in records]


def test_a_compact_directory_reads_as_the_plain_one(host, match_dir, tmp_path):
    # The same match (same seed) written with --compress: games.jsonl.zst, one zstd frame a
    # record, read by the host's own reader through the native module.
    out = tmp_path / "compact"
    run_host(host, "match", "sample-bot", "sample-bot --strategy random", "--games", "4", "--seed", "9",
             "--rules", "barrage", "--out", str(out), "-q", "--compress")
    assert not (out / "games.jsonl").exists()
    plain = list(read_records(match_dir))
    compact = list(read_records(out))
    assert [r.game_id for r in compact] == [r.game_id for r in plain]
    assert [[p.move for p in r.plies] for r in compact] == [[p.move for p in r.plies] for r in plain]
    assert [r.game_id for r in read_records(out / "games.jsonl.zst")] == [r.game_id for r in plain]
    assert sum(1 for _ in positions(out)) == sum(len(r.plies) for r in plain)
    # A host killed in its last write: the torn frame is dropped, with a warning.
    zst = out / "games.jsonl.zst"
    zst.write_bytes(zst.read_bytes()[:-5])
    with pytest.warns(UserWarning, match=r"games.jsonl.zst: the last record is torn at frame 4"):
        torn = list(read_records(out))
    assert [r.game_id for r in torn] == [r.game_id for r in plain[:3]]


def test_positions_of_a_records_directory(match_dir):
    records = list(read_records(match_dir))
    seen = 0
    for pos in positions(match_dir):
        rec = records[[r.game_id for r in records].index(pos.source)]
        assert pos.move == rec.plies[pos.ply].move
        assert pos.game.ply == pos.ply
        assert pos.winner == rec.winner
        view = pos.view()
        assert view.color == pos.game.to_move and pos.move in view.legal_moves
        seen += 1
    assert seen == sum(len(r.plies) for r in records)
    first = next(positions(records[0]))
    assert (first.ply, first.source) == (0, records[0].game_id)


def test_bad_records_name_the_line(tmp_path):
    p = tmp_path / "games.jsonl"
    p.write_text('{"game_id": "x"}\n')
    with pytest.raises(RecordError, match=r"games.jsonl:1: not a game record"):
        list(read_records(p))


def test_a_record_that_does_not_replay_says_which_ply(match_dir):
    line = (match_dir / "games.jsonl").read_text().splitlines()[0]
    rec = json.loads(line)
    rec["plies"][0]["move"] = "a1-a2"  # never a legal first move: empty, or a piece walled in
    rec["plies"][0].pop("combat", None)
    with pytest.raises(RecordError, match=r"ply 1 a1-a2: "):
        Record.from_json(json.dumps(rec)).replay()
