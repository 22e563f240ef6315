"""Allow ``python -m gameroom``."""

from gameroom.cli.main import main

raise SystemExit(main())
