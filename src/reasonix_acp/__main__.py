"""`python -m reasonix_acp` is `acp`."""

from reasonix_acp.cli.main import main

raise SystemExit(main())
