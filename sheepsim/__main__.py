from sheepsim.cli import main

raise SystemExit(main())
