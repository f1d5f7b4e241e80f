"""The front door: the FastAPI app (`app.py`, `routes/`), the `alfred` CLI (`cli.py`), the
embedded stack (`stack.py`) and the Temporal client for turns (`temporal.py`)."""
