"""Process-wide on/off settings that bench and tests flip for a block of calls."""

from __future__ import annotations

import contextlib
import os


class Switch:
    """On unless the environment variable ``env`` is "0"; :meth:`off` turns it off for a
    block (bench times both settings in one run). Plans key on :attr:`on`."""

    __slots__ = ("on",)

    def __init__(self, env: str):
        self.on = os.environ.get(env, "1") != "0"

    @contextlib.contextmanager
    def off(self):
        saved, self.on = self.on, False
        try:
            yield
        finally:
            self.on = saved
