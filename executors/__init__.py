"""The sandboxed code executor: runs untrusted PyTorch answers, grades them outside the sandbox."""
