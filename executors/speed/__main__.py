"""Run the speed timer: ``python -m executors.speed --fd N``."""

from executors.speed.timer import main
from executors.zygote.process import exit_without_teardown

exit_without_teardown(main())
