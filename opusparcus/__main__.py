"""`python -m opusparcus`: the command line."""

import sys

from tapaco.core.errors import run_command


def run() -> int:
    """The `opusparcus` command (also its console script)."""
    return run_command("opusparcus", "opusparcus.cli")


if __name__ == "__main__":
    sys.exit(run())
