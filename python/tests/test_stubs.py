"""The type stubs (stratego/_stratego.pyi) describe the native module: every class,
function and member they declare exists, and every public name of the module is
declared."""

import ast

import stratego
from stratego import _stratego

from conftest import PYTHON_DIR

STUBS = ast.parse((PYTHON_DIR / "stratego" / "_stratego.pyi").read_text())


def declared():
    classes, functions, constants = {}, set(), set()
    for node in STUBS.body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
            classes[node.name] = members
        elif isinstance(node, ast.FunctionDef):
            functions.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            constants.add(node.target.id)
    return classes, functions, constants


def test_every_stub_exists_at_run_time():
    classes, functions, constants = declared()
    for name, members in classes.items():
        cls = getattr(_stratego, name)
        for m in members - {"__init__", "__hash__", "__eq__", "__len__", "__copy__", "__deepcopy__"}:
            if issubclass(cls, Exception) and m == "code":
                continue  # set on each raised instance
            assert hasattr(cls, m), f"{name}.{m}"
    for f in functions:
        assert callable(getattr(_stratego, f)), f
    for c in constants:
        assert hasattr(_stratego, c), c


def test_every_public_name_has_a_stub():
    classes, functions, constants = declared()
    public = {n for n in dir(_stratego) if not n.startswith("_")}
    assert public <= set(classes) | functions | constants, public - set(classes) - functions - constants
    for name in stratego.__all__:
        assert hasattr(stratego, name), name


def test_members_of_the_classes_have_stubs():
    classes, _, _ = declared()
    for name, members in classes.items():
        cls = getattr(_stratego, name)
        if issubclass(cls, Exception):
            continue
        own = {m for m in vars(cls) if not m.startswith("_")}
        assert own <= members, f"{name}: no stub for {sorted(own - members)}"


def test_parameter_names_are_the_stubs_names():
    """The stubs say `move`; the runtime takes `move=` (it took `mv=`, so code the type
    checker passed failed)."""
    rules = stratego.Ruleset.preset("classic")
    game = stratego.Game(rules, stratego.Deployment.random(rules, "red", 1), stratego.Deployment.random(rules, "blue", 2))
    move = game.legal_moves()[0]
    assert game.is_legal(move=move)
    assert game.check_move(move=move) is None
    assert game.play(move=move).move == move


def test_bad_move_text_raises_the_packages_error():
    import pytest

    rules = stratego.Ruleset.preset("classic")
    game = stratego.Game(rules, stratego.Deployment.random(rules, "red", 1), stratego.Deployment.random(rules, "blue", 2))
    for call in (lambda: stratego.Move("e4e5"), lambda: stratego.Move.parse("x-y"), lambda: game.play("nonsense"),
                 lambda: game.is_legal("e4"), lambda: stratego.Move("e4", "z99")):
        with pytest.raises(stratego.MoveSyntaxError) as e:
            call()
        assert isinstance(e.value, stratego.StrategoError) and isinstance(e.value, ValueError)
    with pytest.raises(stratego.MoveSyntaxError, match=r'invalid move "nonsense": expected two square names'):
        game.play("nonsense")


def test_bot_color_is_a_literal():
    import typing

    from stratego.bot import Bot

    hints = typing.get_type_hints(Bot)
    assert typing.get_args(hints["color"]) == ("red", "blue")
