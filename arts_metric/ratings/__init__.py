"""The rating maths: Elo updates and conversions (:mod:`~arts_metric.ratings.elo`),
Bradley-Terry fits, match schedules, statistics and rater agreement. Pure numpy/scipy:
no judges, no texts."""
