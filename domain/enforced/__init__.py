"""What the system decides itself: the rules that need no judgment (seed 004, "LLMs
interpret, don't own": Understand, Think and Act reason; the system enforces).

Each rule reads a node's answer with what the system already knows (the plan's own step
types and groups, the user's words) and changes it only where the answer contradicts a
rule of the seeds. They run in the node's activity, where the answer becomes its output,
so a turn's history records the output as held and older histories replay unchanged.

- ``plan_rules``: Understand's and Think's answers (the quick path, questions, a plan's
  decision, steps and order).
- ``act_rules``: Act's decisions (a step's calls, their ends, what they save).
- ``aimed``: a missed call sent again, run where its note leaves one meaning.
- ``made_already``: rows a step would make or set again.
- ``read_filters``: a read's filters held to what was said.
- ``profile``: a statement about the cook or the household kept in the profile.
"""
