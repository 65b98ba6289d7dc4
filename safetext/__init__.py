"""Text safety shared by the executor and every front end: the one sanitiser."""
