"""Speed challenges: time a submission against a reference by the kernel's CPU accounting."""
