"""Helpers for the fault-injection suite: a fake project + mirrors, a CLI runner that can be
killed at a chosen point, tree snapshots, and small mounts (tmpfs, read-only binds)."""
