"""The scoring settings as command-line flags: every subcommand that scores
(`arts score`, `arts compare`) adds the same flags, generated from
:class:`arts_metric.scoring.config.ScoringConfig` (its defaults, choices and help), and
turns them back into a config the same way."""

from __future__ import annotations

import argparse

from arts_metric.commands import CLIError
from arts_metric.scoring.config import ScoringConfig

#: ScoringConfig settings given as flags (``--long-texts`` for ``long_texts``), and their types.
SETTING_FLAGS = {
    "pool": str,
    "judge": str,
    "formulas": str,
    "long_texts": str,
    "chunk_chars": int,
    "split_above": int,
    "placement": str,
    "data_dir": str,
    "language": str,
}


def add_setting_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--pool``, ``--judge``, ``--formulas``, ... (None when not given: the config's default applies)."""
    for name, type_ in SETTING_FLAGS.items():
        default = ScoringConfig.default(name)
        shown = (
            "" if default is None else f" (default: {','.join(default) if isinstance(default, tuple) else default})"
        )
        parser.add_argument(
            "--" + name.replace("_", "-"),
            type=type_,
            default=None,
            choices=ScoringConfig.choices(name),
            help=ScoringConfig.help(name).replace("%", "%%") + shown,
        )


def config_from_args(args: argparse.Namespace, placement_flags: tuple[str, ...] = ()) -> ScoringConfig:
    """The flags as a :class:`ScoringConfig` (a flag not given keeps the setting's default);
    ``placement_flags`` name the flags that go into ``placement_options``."""
    settings = {name: getattr(args, name) for name in SETTING_FLAGS if getattr(args, name) is not None}
    options = {name: getattr(args, name) for name in placement_flags if getattr(args, name) is not None}
    try:
        return ScoringConfig.from_settings(settings, placement_options=options)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
