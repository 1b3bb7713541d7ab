"""The ``evaluate`` module script of ARTS (``arts.py``), shipped as package data.

``evaluate`` copies a module script into its own modules cache and imports it
from there, so ``arts.py`` imports the installed ``arts_metric`` package with
absolute imports only. :mod:`arts_metric.evaluate_module.registry` puts it where
``evaluate.load("arts")`` finds it offline.
"""
