import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Runs the installed `xlssd` command as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "xlssd", *args], capture_output=True, text=True, cwd=cwd, timeout=600
    )


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def shared_traces() -> Path:
    path = SHARED / "traces"
    if not path.is_dir():
        pytest.skip("shared traces are not beside the checkout")
    return path
