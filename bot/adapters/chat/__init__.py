"""What the Discord and Slack front ends share: the request front, the runtime, tally edits."""
