"""Internal helpers: missing values, category sets and integer coding of nominal labels."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence

import numpy as np

Label = Hashable


def is_missing(value: object) -> bool:
    """None and float NaN stand for 'no rating'."""
    if value is None:
        return True
    if isinstance(value, float | np.floating):
        return math.isnan(value)
    return False


def _is_bool(value: object) -> bool:
    return isinstance(value, bool | np.bool_)


def resolve_categories(
    observed: Iterable[Label], categories: Iterable[Label] | None = None
) -> tuple[Label, ...]:
    """The category set of a measure.

    Given ``categories``, those (observed labels must be among them). Otherwise the labels seen,
    in order of first appearance; when every label seen is a bool, the set is (False, True) even
    if only one of them occurs, because binary verdicts always have two possible values.
    """
    seen = tuple(dict.fromkeys(observed))
    if categories is not None:
        declared = tuple(dict.fromkeys(categories))
        allowed = set(declared)
        unknown = [label for label in seen if label not in allowed]
        if unknown:
            raise ValueError(f"labels not among the declared categories: {unknown!r}")
        return declared
    if seen and all(_is_bool(label) for label in seen):
        return (False, True)
    return seen


def as_rows(matrix: Sequence[Sequence[Label | None]] | np.ndarray) -> list[list[Label | None]]:
    """A raters x units matrix as a list of equally long lists (ragged input is an error)."""
    if isinstance(matrix, np.ndarray):
        if matrix.size == 0:
            return [[] for _ in range(matrix.shape[0])] if matrix.ndim == 2 else []
        if matrix.ndim != 2:
            raise ValueError("a ratings matrix has two dimensions: raters x units")
        return [list(row) for row in matrix.tolist()]
    rows = [list(row) for row in matrix]
    if rows and len({len(row) for row in rows}) > 1:
        raise ValueError("every rater's row must have one entry per unit (None when missing)")
    return rows


def encode_matrix(
    matrix: Sequence[Sequence[Label | None]] | np.ndarray,
    categories: Iterable[Label] | None = None,
) -> tuple[np.ndarray, tuple[Label, ...]]:
    """Code a raters x units matrix as integers: -1 for missing, else the category's index."""
    if isinstance(matrix, np.ndarray) and matrix.ndim == 2 and matrix.dtype.kind == "f":
        return _encode_float_matrix(matrix, categories)
    rows = as_rows(matrix)
    present = (value for row in rows for value in row if not is_missing(value))
    cats = resolve_categories(present, categories)
    index = {label: i for i, label in enumerate(cats)}
    n_units = len(rows[0]) if rows else 0
    codes = np.full((len(rows), n_units), -1, dtype=np.int64)
    for r, row in enumerate(rows):
        codes[r] = [-1 if is_missing(value) else index[value] for value in row]
    return codes, cats


def _encode_float_matrix(
    matrix: np.ndarray, categories: Iterable[Label] | None
) -> tuple[np.ndarray, tuple[Label, ...]]:
    """The vectorised path for a float matrix with NaN for missing (binary verdicts coded 0/1
    at full scale are 1,000,000 cells): categories are the values seen, or the
    declared ones (0.0 and 1.0 equal False and True, so declared booleans match)."""
    missing = np.isnan(matrix)
    values, first = np.unique(matrix[~missing], return_index=True)
    # First appearance, row by row, as the list path orders them (sums then run in the same
    # order, so both paths give identical floats).
    seen = values[np.argsort(first)].tolist()
    cats = resolve_categories(seen, categories)
    codes = np.full(matrix.shape, -1, dtype=np.int64)
    for i, label in enumerate(cats):
        codes[~missing & (matrix == label)] = i
    return codes, cats


def unit_counts(codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Units x categories table: how many raters put each unit in each category."""
    n_units = codes.shape[1] if codes.ndim == 2 else 0
    counts = np.zeros((n_units, n_categories), dtype=np.int64)
    if codes.size and n_categories:
        raters, units = np.nonzero(codes >= 0)
        np.add.at(counts, (units, codes[raters, units]), 1)
    return counts


def _encode_bool_pairs(
    first: np.ndarray, second: np.ndarray, categories: Iterable[Label] | None
) -> tuple[np.ndarray, np.ndarray, tuple[Label, ...]]:
    """The vectorised path for two boolean arrays (nothing can be missing)."""
    if first.shape != second.shape or first.ndim != 1:
        raise ValueError(f"sequences differ in length: {first.size} and {second.size}")
    seen = [value for value in (False, True) if (first == value).any() or (second == value).any()]
    cats = resolve_categories(seen, categories)
    index = {label: i for i, label in enumerate(cats)}
    false, true = index.get(False, -1), index.get(True, -1)
    return np.where(first, true, false), np.where(second, true, false), cats


def encode_pairs(
    first: Sequence[Label | None],
    second: Sequence[Label | None],
    categories: Iterable[Label] | None = None,
) -> tuple[np.ndarray, np.ndarray, tuple[Label, ...]]:
    """Code two aligned sequences, leaving out positions where either value is missing."""
    if (
        isinstance(first, np.ndarray)
        and isinstance(second, np.ndarray)
        and first.dtype == bool
        and second.dtype == bool
    ):
        return _encode_bool_pairs(first, second, categories)
    first, second = list(first), list(second)
    if len(first) != len(second):
        raise ValueError(f"sequences differ in length: {len(first)} and {len(second)}")
    kept = [
        (a, b) for a, b in zip(first, second, strict=True) if not (is_missing(a) or is_missing(b))
    ]
    cats = resolve_categories((label for pair in kept for label in pair), categories)
    index = {label: i for i, label in enumerate(cats)}
    a = np.fromiter((index[x] for x, _ in kept), dtype=np.int64, count=len(kept))
    b = np.fromiter((index[y] for _, y in kept), dtype=np.int64, count=len(kept))
    return a, b, cats
