"""``torchenv export KIND``: every file a user's own tool reads, generated from ``torchenv.lock``.

Why from the lock and never re-resolved: the pylock, requirements file, Dockerfile or modulefile a
teammate uses must install exactly the bytes ``torchenv up`` installed (same URLs, same sha256).
Each kind is one module with a ``render(request) -> str``; ``base.KINDS`` is the registry.
"""
