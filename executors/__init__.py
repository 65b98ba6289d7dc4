"""The sandboxed code executor: runs untrusted PyTorch answers and grades them outside the sandbox."""
