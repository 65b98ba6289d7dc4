"""The sandboxed code executor: runs untrusted PyTorch answers, grades them outside the sandbox.

Its parts, in the order a submission meets them:

- ``engine``: the plain Python API, ``LocalExecutor.run(challenge_id, code) -> Verdict``.
- ``grading``: the trusted side; challenges and their hidden tests, the data-only wire format
  that crosses the sandbox boundary, the grader and the Verdict.
- ``zygote``: the warm process that has imported torch, its event loop, the single-use children
  it forks, the harness each child runs, and the doctor that checks every layer from inside one.
- ``isolation``: the layers a child applies to itself (namespaces, mounts, seccomp, rlimits,
  cgroups) and the limits they enforce.
- ``cli``: ``torchquiz exec`` and ``torchquiz bench executor``.

Nothing here imports the bot or the database.
"""
