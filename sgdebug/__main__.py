"""``python -m sgdebug``: the same command line as the ``sgdebug`` script."""

from __future__ import annotations

from sgdebug.cli import main

if __name__ == "__main__":
    main()
