"""Concord's version, as pyproject.toml states it (a test keeps the two equal); machine-
readable outputs name it so a reader knows what produced them."""

CONCORD_VERSION = "0.3.0"
