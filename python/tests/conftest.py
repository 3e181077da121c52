"""Shared helpers: where the repository, its test data and the stratego-host binary are."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parent.parent
REPO = PYTHON_DIR.parent
GRAVON_FIXTURE = REPO / "rules" / "tests" / "data" / "gravon"
SETUP_BOOK = REPO / "host" / "tests" / "data" / "setups-sample.txt"


def find_host() -> Path:
    """$STRATEGO_HOST, else the release build, else the debug build, under
    $CARGO_TARGET_DIR or the repository's target/."""
    env = os.environ.get("STRATEGO_HOST")
    if env:
        path = Path(env)
        if not path.is_file():
            raise FileNotFoundError(f"STRATEGO_HOST={env} is not a file")
        return path
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        path = target / profile / "stratego-host"
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"no stratego-host under {target}/release or /debug: build it with "
        "`cargo build --release -p stratego-host` or set STRATEGO_HOST"
    )


@pytest.fixture(scope="session")
def host() -> Path:
    return find_host()


def run_host(host: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(host), *args], capture_output=True, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"stratego-host {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


def bot_command(script: Path, *args: str) -> str:
    """A bot command line for the host: this interpreter running `script`."""
    return " ".join([sys.executable, str(script), *args])


#: The host's per-move limit for games in tests that are not about clocks (as CALM_CLOCK in
#: tests/src/lib.rs): a Python bot under a debug host on a loaded machine overran the
#: default 1 s.
CALM_CLOCK = ("--move-time", "60")
