"""python/README.md's examples, run: every `pycon` block as a doctest (the API table's
examples), the bot of "A bot in a few lines", and the learning loop on a real --out
directory; every name the API table mentions exists."""

import doctest
import re

import stratego
import stratego.data
import stratego.encoding
import stratego.env

from conftest import CALM_CLOCK, PYTHON_DIR, REPO, run_host

README = (PYTHON_DIR / "README.md").read_text()


def blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README, re.S)


def test_the_pycon_examples_run_as_written(monkeypatch):
    monkeypatch.chdir(REPO)  # the examples name repository paths
    found = blocks("pycon")
    assert found, "the README has pycon examples"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, text in enumerate(found):
        test = parser.get_doctest(text, {}, f"README pycon block {i}", str(PYTHON_DIR / "README.md"), 0)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 20
    assert result.failed == 0


def test_the_python_examples_run(host, tmp_path, monkeypatch):
    bot_block, learning_block = blocks("python")
    ns = {"__name__": "readme"}
    exec(compile(bot_block, "README: a bot", "exec"), ns)
    bot = ns["MyBot"]()
    rec = stratego.play(bot, ns["MyBot"](), "barrage", 1)
    assert rec.plies
    # The learning loop reads a match's --out directory named results/.
    monkeypatch.chdir(tmp_path)
    run_host(host, "match", *CALM_CLOCK, "sample-bot", "sample-bot --strategy random", "--games", "2", "--rules", "barrage",
             "--out", "results", "-q")
    ns = {}
    exec(compile(learning_block, "README: learning", "exec"), ns)
    assert ns["x"].shape == (29, 10, 10) and isinstance(ns["y"], int)


def test_every_name_in_the_api_table_exists():
    rows = [line for line in README.splitlines() if line.startswith("| ") and not line.startswith("| what")]
    assert len(rows) > 10
    objects = {
        "stratego": stratego, "Ruleset": stratego.Ruleset, "Deployment": stratego.Deployment, "Game": stratego.Game,
        "Combat": stratego.Combat, "View": stratego.View, "Tracker": stratego.Tracker, "Record": stratego.Record,
        "GravonGame": stratego.GravonGame, "stratego.data": stratego.data, "stratego.encoding": stratego.encoding,
        "stratego.env": stratego.env, "StrategoEnv": stratego.env.StrategoEnv,
    }
    checked = 0
    for row in rows:
        for dotted in re.findall(r"`((?:stratego\.)?[A-Z][A-Za-z]+|stratego\.[a-z_.]+[A-Za-z_]+)\.([a-z_]+)\(", row):
            owner, attr = dotted
            obj = objects.get(owner)
            if obj is None:
                continue
            assert hasattr(obj, attr), f"{owner}.{attr} ({row[:40]}…)"
            checked += 1
    assert checked >= 10
