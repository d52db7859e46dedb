"""``python -m turnproof.scenarios``: the turnproof command line."""

from turnproof.scenarios.cli import main

if __name__ == "__main__":
    main()
