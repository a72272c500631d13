"""Browsing the results database (issue 5's store) in the web app."""

from __future__ import annotations


def routes(db_path: str | None) -> list:
    return []
