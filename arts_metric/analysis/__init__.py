"""Analyses that use the scoring core but are not part of it: which metric agrees with
human judgments (:mod:`.metric_comparison`, :mod:`.comparison_report`), RSRS
(:mod:`.rsrs`), and the ARTS paper's simulation of Elo ratings (:mod:`.simulation`).
Benchmarks and analyses import these; ``compute()`` never does."""
