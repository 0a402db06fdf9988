"""The ``dealer-station`` command line."""
