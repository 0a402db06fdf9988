"""Bourré's page of the configuration history (reports/config_history.py): a rule profile's
settings. Its own module, named in the game registry (``report_config``)."""

from __future__ import annotations

from reportlab.platypus import Flowable

from dealer_station.audit.journal import ConfigVersion
from dealer_station.reports.config_history import flatten, show_value
from dealer_station.reports.pdf_style import p
from dealer_station.reports.template import ReportBuilder, grid


def profile_body(r: ReportBuilder, version: ConfigVersion,
                 previous: ConfigVersion | None = None) -> list[Flowable]:
    """The registry's ``report_config`` part of Bourré: a rule profile's settings whole, or
    (``previous`` given) only what the difference table above already lists."""
    if previous is not None:
        return [p("Profile: every setting that changed is listed above.", "note")]
    w = r.width
    rows = [[k, show_value(v)] for k, v in flatten(version.content).items()]
    return [grid(["Setting", "Value"], rows, [w * 0.5, w * 0.5], wrap=(0, 1))]
