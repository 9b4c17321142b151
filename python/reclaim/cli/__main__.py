"""``python -m reclaim.cli``: the ``reclaim`` command."""

from reclaim.cli import main

if __name__ == "__main__":
    main()
