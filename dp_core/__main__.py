"""``python -m dp_core``: see :mod:`dp_core.cli`."""

import sys

if __name__ == "__main__":
    try:
        from .cli import main
    except KeyboardInterrupt:  # Ctrl-C while the engine is still being imported
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    sys.exit(main())
