"""`python -m tapaco`: the command line."""

import sys

from tapaco.cli import main

sys.exit(main())
