"""Rubric editing as plain data: rows, validation, diffs and rebases, without a database."""
