"""How well a model runs Alfred, measured: scenarios as data, run through the real stack.

A scenario (``evals/scenarios/*.toml``) is a kitchen to start from, the user's messages
(with their answers to pauses and the UI edits between them) and the effects expected of
each turn, checked on the database, the session registry and the reply. ``alfred eval``
runs the suite against any OpenAI-compatible endpoint and writes a report (pass rate, model
calls, tokens, latency, repairs, cost); ``--record`` keeps each scenario's model answers
as a cassette (``evals/cassettes/<label>/``), which ``make test`` replays with no model.
"""
