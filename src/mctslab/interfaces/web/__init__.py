"""The web app: play and watch games in the browser (``mctslab serve``)."""

from mctslab.interfaces.web.app import create_app

__all__ = ["create_app"]
