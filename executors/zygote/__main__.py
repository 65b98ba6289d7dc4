"""Run the warm zygote process: `python -m executors.zygote --fd N`, started by the supervisor."""

from executors.zygote.process import exit_without_teardown, main

exit_without_teardown(main())
