"""`python -m app` runs the `inbox` command."""

import sys

from app.cli import main

sys.exit(main())
