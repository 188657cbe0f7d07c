"""`python -m tapaco`: the command line."""

import sys

from tapaco.core.errors import run_command
from tapaco.core.forked import share_one_malloc_arena


def run() -> int:
    """The `tapaco` command (also its console script)."""
    share_one_malloc_arena()
    return run_command("tapaco", "tapaco.cli")


if __name__ == "__main__":
    sys.exit(run())
