"""`python -m app` runs the `inbox` command."""

import sys

from app.cli import main

# Spawned child processes import this module again under another name; only the command runs `main`.
if __name__ == "__main__":
    sys.exit(main())
