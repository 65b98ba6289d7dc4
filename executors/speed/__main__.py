"""Run the speed timer: ``python -m executors.speed --fd N``."""

from executors.speed.timer import main

raise SystemExit(main())
