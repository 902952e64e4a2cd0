"""One module per verb: ``register(subparsers)`` and ``run(args) -> int``."""
