"""A text: reading input files (:mod:`~arts_metric.text.reading`), checking texts and
human scores given as inputs, cutting a text into sentences, its surface features, the
readability formulas, CEFR levels, and what counts as a word."""
