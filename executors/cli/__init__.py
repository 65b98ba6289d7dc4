"""The executor's command line: `torchquiz exec` and `torchquiz bench executor`."""
