"""The web rating interface for human raters (paper section 4.2 and appendix A.3).

``arts rate OUT`` serves it on 127.0.0.1: two texts side by side with the
instruction "Click on the text which is easier to understand", the ARTS
guideline in a sidebar, progress ``n / total``, and a button to save the
rater's history. Every rater gets the build's deterministic schedule; each
click is committed to the build's SQLite store at once, so raters can stop and
come back with their personal link. The click names the *easier* text; the
store records the other one as ``harder`` (the winner), as in the ARTS data.
A rank-and-rate mode (README++: order five texts, then give each a CEFR level)
is available with ``--mode rank-rate``.

No one acts without a secret token: a personal link per rater (rates as that
rater only), a coordinator link (progress, downloads, new links) and an
optional sign-up link (start as a new rater by name); see :mod:`arts_metric.web.server`.
"""

from arts_metric.builder.specs import rater_id
from arts_metric.web.rating_app import MODES, RatingApp
from arts_metric.web.server import RatingServer, make_server

__all__ = ["MODES", "RatingApp", "RatingServer", "make_server", "rater_id"]
