"""``python -m warpsim ...``: the ``warpsim`` command without the installed entry point."""
import sys

from warpsim.cli import main

sys.exit(main())
