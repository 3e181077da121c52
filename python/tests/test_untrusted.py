"""Hostile files (issue #42 items 14, 15, 17): decompression bombs and over-long lines
raise exceptions and never abort the interpreter, in bounded memory; a compact file that
starts with a skippable frame reads. The bombs are made here, at test time."""

import resource
import subprocess
import sys
import zipfile

import pytest

from stratego import GravonError, RecordError
from stratego.data import MAX_RECORD_BYTES, gravon_games, read_records

from conftest import run_host


def zstd_bomb(size: int) -> bytes:
    """One zstd frame of ``size`` spaces in run-length blocks of 128 KiB (RFC 8878): a
    header that names no content size, four bytes a block (2 GiB in 64 KiB)."""
    block = 128 << 10
    frame = bytearray(b"\x28\xb5\x2f\xfd\x00" + bytes([7 << 3]))
    blocks = -(-size // block)
    for i in range(blocks):
        last = i + 1 == blocks
        n = size - i * block if last else block
        frame += ((n << 3) | (1 << 1) | int(last)).to_bytes(3, "little") + b" "
    return bytes(frame)


@pytest.fixture(scope="module")
def compact_dir(host, tmp_path_factory):
    out = tmp_path_factory.mktemp("compact")
    run_host(host, "match", "sample-bot", "sample-bot --strategy random", "--games", "2", "--seed", "9",
             "--rules", "barrage", "--max-plies", "60", "--compress", "--out", str(out), "-q")
    return out


def in_child(code: str) -> subprocess.CompletedProcess:
    """Runs ``code`` in a fresh interpreter (an abort there does not take the tests down);
    it prints its peak RSS (KiB) last."""
    tail = "\nimport resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    return subprocess.run([sys.executable, "-c", code + tail], capture_output=True, text=True, timeout=600)


def test_a_zstd_bomb_raises_record_error_in_bounded_memory(compact_dir, tmp_path):
    bomb = tmp_path / "games.jsonl.zst"
    bomb.write_bytes((compact_dir / "games.jsonl.zst").read_bytes() + zstd_bomb(2 << 30))
    code = f"""
from stratego import RecordError
from stratego.data import read_records
n = 0
try:
    for r in read_records({str(bomb)!r}):
        n += 1
    print("no error")
except RecordError as e:
    print("raised", n, e)
"""
    run = in_child(code)
    assert run.returncode == 0, f"the interpreter died: {run.returncode}\n{run.stderr}"
    lines = run.stdout.splitlines()
    assert lines[0].startswith("raised 2 ") and f"longer than {MAX_RECORD_BYTES} bytes" in lines[0], run.stdout
    assert int(lines[-1]) < 300 * 1024, f"peak RSS {lines[-1]} KiB"


def test_a_record_line_past_the_limit_raises_naming_its_line(compact_dir, tmp_path):
    plain = tmp_path / "games.jsonl"
    first = next(iter(read_records(compact_dir))).to_json()
    with open(plain, "w") as f:
        f.write(first + "\n")
        f.write('{"game_id": "' + "x" * 5000 + '"}\n')
        f.write(first + "\n")
    with pytest.raises(RecordError, match=r"games.jsonl:2: longer than 4096 bytes"):
        list(read_records(plain, max_record_bytes=4096))
    # Under a higher limit the same line is read, and is no record.
    with pytest.raises(ValueError, match=r"games.jsonl:2: "):
        list(read_records(plain, max_record_bytes=1 << 20))


def test_a_gravon_zip_bomb_raises_naming_the_entry_and_games_stream(tmp_path):
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("a-bomb.xml", "w", force_zip64=True) as f:
            chunk = b" " * (1 << 20)
            for _ in range(256):
                f.write(chunk)
    with pytest.raises(GravonError, match=r"bomb.zip:a-bomb.xml: longer than 1048576 bytes"):
        list(gravon_games(archive, max_game_bytes=1 << 20))
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(GravonError):
        next(iter(gravon_games(archive, max_game_bytes=1 << 20)))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before < 64 * 1024


def test_a_compact_file_starting_with_a_skippable_frame_reads(compact_dir, tmp_path):
    skippable = b"\x50\x2a\x4d\x18" + (5).to_bytes(4, "little") + b"hello"
    file = tmp_path / "records.bin"
    file.write_bytes(skippable + (compact_dir / "games.jsonl.zst").read_bytes())
    assert [r.game_id for r in read_records(file)] == [r.game_id for r in read_records(compact_dir)]
