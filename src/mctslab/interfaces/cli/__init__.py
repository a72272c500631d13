"""The ``mctslab`` command line (click); :mod:`.main` holds the group and its commands."""
