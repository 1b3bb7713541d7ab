"""The web rating interface for human raters (paper section 4.2 and appendix A.3).

``arts rate OUT`` serves it on 127.0.0.1: two texts side by side with the
instruction "Click on the text which is easier to understand", the ARTS
guideline in a sidebar, progress ``n / total``, and a button to save the
rater's history. Every rater gets the build's deterministic schedule; each
click is committed to the build's SQLite store at once, so raters can stop and
come back under the same name. The click names the *easier* text; the store
records the other one as ``harder`` (the winner), as in the ARTS data.
A rank-and-rate mode (README++: order five texts, then give each a CEFR level)
is available with ``--mode rank-rate``.
"""

from arts_metric.build.specs import rater_id
from arts_metric.web.server import MODES, RatingApp, make_server

__all__ = ["MODES", "RatingApp", "make_server", "rater_id"]
