"""`python -m tapaco`: the command line."""

import sys

from tapaco.core.allocation import reuse_freed_memory
from tapaco.core.errors import run_command


def run() -> int:
    """The `tapaco` command (also its console script)."""
    reuse_freed_memory()
    return run_command("tapaco", "tapaco.cli")


if __name__ == "__main__":
    sys.exit(run())
