"""Research exports: the files researchers download, the jobs that prepare them in the
background, and the evidence bundles of published boards (`bundles/`).

The row generators (`tables`, `tidy`) yield lists of str/int/float values (never model
objects), in an order fixed by explicit `order_by` on unique keys, so two exports of the
same data are identical byte for byte. Memory stays flat however large the round or run:
rows are read with `values_list(...).iterator(chunk_size=...)`, or, for the tidy file,
item by item in keyset pages with a fixed handful of queries per page (never one per
row).

Experts are named only by their per-round pseudonym (`rater_pseudonyms`), never by
username.
"""
