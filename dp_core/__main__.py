"""``python -m dp_core``: see :mod:`dp_core.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
