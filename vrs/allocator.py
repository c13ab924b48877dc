"""Keep freed activation memory in the process, so that a reasoner's calls do not page-fault.

Why: glibc's malloc serves blocks above its mmap threshold (128 KB at start, raised
dynamically as such blocks are freed) with a fresh `mmap` and returns them with `munmap` on
free, and trims the heap top above its trim threshold. A detector forward at batch 1 allocates
and frees a dozen activation tensors of 0.3-1.2 MB ((1, 16, 120, 160) float32 is 1.2 MB).
Measured on the 2-core reference machine (the shipped detector, `getrusage` over calls 5-405
on new images): ~1,530 minor page faults per call (~6 MB of pages mapped afresh) with glibc's
defaults, none with the thresholds below; `codeplan bench vqa` (200 new images, a fresh
process), back to back: p50 13.5 ms with the defaults, 7.5-9.5 ms in four runs with the
thresholds. Peak RSS grew by ~10 MB. Serving stacks set the same thresholds (or use jemalloc /
tcmalloc); this does it from Python, once, at load time. A user's own malloc settings
(`MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`, `GLIBC_TUNABLES`) win, and
`CODEPLAN_KEEP_FREED_MEMORY=0` leaves glibc's defaults alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

M_TRIM_THRESHOLD = -1  # glibc <malloc.h>: free space kept at the heap top before trimming
M_MMAP_THRESHOLD = -3  # glibc <malloc.h>: smallest block served by mmap
MMAP_THRESHOLD = 32 * 1024 * 1024  # bytes: glibc's upper bound for this setting (64-bit)
TRIM_THRESHOLD = 64 * 1024 * 1024  # bytes: free heap top a process keeps (~50 activations)
USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")

_done = False


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds (see the module docstring). Returns whether the
    setting took; False where the C library is not glibc (macOS, Windows, musl) or the user
    chose (module docstring), which then keeps its own behaviour. Idempotent."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux") or os.environ.get("CODEPLAN_KEEP_FREED_MEMORY") == "0" \
            or any(os.environ.get(k) for k in USER_SETTINGS):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and \
        bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _done
