"""The warm zygote, its event loop and single-use children, the harness and the doctor."""
