"""Declarative experiments (``experiments/*.toml``): see :mod:`.spec` for the file format and
:mod:`.runner` for running them, :mod:`.report` for their reports."""

from mctslab.harness.experiments.report import write_report
from mctslab.harness.experiments.runner import check_available, run
from mctslab.harness.experiments.spec import Experiment, ExperimentError, list_names, load, missing

__all__ = [
    "Experiment",
    "ExperimentError",
    "check_available",
    "list_names",
    "load",
    "missing",
    "run",
    "write_report",
]
