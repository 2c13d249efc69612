"""`python -m app` runs the `inbox` command."""

import sys

# Spawned child processes import this module again under another name (`__mp_main__`); only the
# command needs the whole command line, so children skip its imports and start faster.
if __name__ == "__main__":
    from app.cli import main

    sys.exit(main())
