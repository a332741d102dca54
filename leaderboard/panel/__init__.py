"""Can this judge replace an expert? The Alternative Annotator Test and HealthBench's
macro F1 for a review round and a named judge version: the selector, the page, the API
and the `judge_panel` command."""
