"""Parsing and validation of benchmark files. No Django imports: rows in, typed rows or
issues out, so the rules are tested without a database."""
