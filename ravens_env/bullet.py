"""Import PyBullet without its banner.

The C extension prints "pybullet build time: ..." on import (to stderr), which clutters every
CLI command's output and log. We point file descriptors 1 and 2 at /dev/null for the import
only, flushing the C library's buffers before restoring them. Python-level import errors are
still raised normally.
"""

from __future__ import annotations

import ctypes
import os
import sys


def _quiet_import():
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in saved:
            os.dup2(devnull, fd)
        import pybullet

        ctypes.CDLL(None).fflush(None)
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        os.close(devnull)
    return pybullet


pb = _quiet_import()
