"""``python -m arts_metric``: the ``arts`` command (``python -m arts_metric register`` is ``arts register``)."""

from arts_metric.cli import main

raise SystemExit(main())
