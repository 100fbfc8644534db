from acp_conformance.cli import main

raise SystemExit(main())
