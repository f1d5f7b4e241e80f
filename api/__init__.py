"""The front door: the `alfred` CLI today, the FastAPI app in a later issue."""
