"""The LLM: the one client that talks to it (the anthropic SDK), every prompt it is sent,
the verdict band of a detection pass, and the Message Batches of a full pass."""
