"""The layers a sandboxed child applies to itself, and the limits they enforce."""
