"""What a project states about its torch stack, as records, and the one ranking that decides from them.

Why records: a project says its stack in many places (a lock, a requirements pin, a README
command, a Dockerfile base), and they can disagree. Each statement becomes a ``Record`` naming
its file and line, what it sets and how strong it is; ``rank.decide`` then picks one value per
field the same way for every project, and names what it set aside. The ``readers`` are pure
(text in, records out), so each format is tested alone.
"""
