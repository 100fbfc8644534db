"""`python -m reasonix_acp` is `acp`."""

from reasonix_acp.cli import main

raise SystemExit(main())
