"""The trusted side: challenges, the data-only wire format, the grader and the Verdict."""
