"""`python -m opusparcus`: the command line."""

import sys

from opusparcus.cli import main

sys.exit(main())
