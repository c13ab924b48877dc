"""Plain-data wire format between the host and the sandbox worker.

Why not pickle: the worker runs untrusted code. If it were ever subverted, unpickling
its messages would hand it the host. JSON can only produce plain data, and every value
is re-checked by *exact* type on both sides (a ``str`` subclass defined by a codeplan is
refused, so no codeplan-defined method ever runs while a message is encoded).

Tuples and dicts are tagged (``{"t": [...]}``, ``{"d": [[k, v], ...]}``) so that they
round-trip exactly and dict keys need not be strings; bare JSON objects never appear.
"""

from __future__ import annotations

import json
import socket
import struct
import time

MAX_FRAME_BYTES = 16 * 1024 * 1024  # largest message either side accepts, bytes
MAX_DEPTH = 32  # nesting levels of plain data; keeps encode/decode recursion bounded
PLAIN_TYPES_TEXT = "str, int, float, bool, None, list, tuple, dict"

_HEADER = struct.Struct(">I")  # 4-byte big-endian frame length
_SCALARS = frozenset({str, int, float, bool, type(None)})
_KEY_TYPES = _SCALARS | {tuple}


class WireError(ValueError):
    """A value is not plain data, or a frame is malformed or too large."""


def _to_json(value: object, depth: int) -> object:
    if depth > MAX_DEPTH:
        raise WireError(f"data nested deeper than {MAX_DEPTH} levels")
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list:
        return [_to_json(item, depth + 1) for item in value]  # type: ignore[attr-defined]
    if kind is tuple:
        return {"t": [_to_json(item, depth + 1) for item in value]}  # type: ignore[attr-defined]
    if kind is dict:
        pairs = []
        for key, item in value.items():  # type: ignore[attr-defined]
            if type(key) not in _KEY_TYPES:
                raise WireError(f"dict key of type {type(key).__name__} is not plain data")
            pairs.append([_to_json(key, depth + 1), _to_json(item, depth + 1)])
        return {"d": pairs}
    raise WireError(f"{kind.__name__} is not plain data")


def _from_json(value: object, depth: int) -> object:
    if depth > MAX_DEPTH:
        raise WireError(f"data nested deeper than {MAX_DEPTH} levels")
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list:
        return [_from_json(item, depth + 1) for item in value]  # type: ignore[attr-defined]
    if kind is dict and len(value) == 1:  # type: ignore[arg-type]
        ((tag, body),) = value.items()  # type: ignore[attr-defined]
        if tag == "t" and type(body) is list:
            return tuple(_from_json(item, depth + 1) for item in body)
        if tag == "d" and type(body) is list:
            return _dict_from_pairs(body, depth)
    raise WireError("malformed plain-data message")


def _dict_from_pairs(pairs: list, depth: int) -> dict:
    out = {}
    for pair in pairs:
        if type(pair) is not list or len(pair) != 2:
            raise WireError("malformed dict in message")
        key = _from_json(pair[0], depth + 1)
        if type(key) not in _KEY_TYPES:
            raise WireError("malformed dict key in message")
        try:
            out[key] = _from_json(pair[1], depth + 1)
        except TypeError as exc:  # unhashable tuple key, e.g. a tuple holding a list
            raise WireError("unhashable dict key in message") from exc
    return out


def check_plain(value: object) -> None:
    """Raise WireError unless ``value`` is plain data; why: refuse before anything is sent."""
    _to_json(value, 0)


def encode(value: object) -> bytes:
    """Serialise plain data to UTF-8 JSON bytes, or raise WireError."""
    text = json.dumps(_to_json(value, 0), ensure_ascii=False, separators=(",", ":"))
    data = text.encode("utf-8", "surrogatepass")
    if len(data) > MAX_FRAME_BYTES:
        raise WireError(f"message of {len(data)} bytes exceeds {MAX_FRAME_BYTES} bytes")
    return data


def decode(data: bytes) -> object:
    """Parse bytes from the other side; any malformation becomes WireError, never more."""
    try:
        raw = json.loads(data.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError, MemoryError) as exc:  # incl. >4300-digit ints
        raise WireError(f"undecodable message: {type(exc).__name__}") from exc
    return _from_json(raw, 0)


class Channel:
    """Length-prefixed JSON frames over a stream socket, with optional deadlines.

    Why frames and deadlines: the host must never block forever on a worker that stops
    talking, and must be able to tell a clean end (EOFError) from a stall (TimeoutError).
    """

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def send(self, message: object, timeout: float | None = None) -> None:
        self.send_bytes(encode(message), timeout)

    def send_bytes(self, data: bytes, timeout: float | None = None) -> None:
        """Send an already ``encode()``d message: a failed encode must not half-send."""
        self.sock.settimeout(timeout)
        self.sock.sendall(_HEADER.pack(len(data)) + data)

    def recv(self, timeout: float | None = None) -> object:
        deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
        (size,) = _HEADER.unpack(self._read(_HEADER.size, deadline))
        if size > MAX_FRAME_BYTES:
            raise WireError(f"frame of {size} bytes exceeds {MAX_FRAME_BYTES} bytes")
        return decode(self._read(size, deadline))

    def _read(self, size: int, deadline: float | None) -> bytes:
        buf = bytearray(size)
        view = memoryview(buf)
        got = 0
        while got < size:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no message before the deadline")
                self.sock.settimeout(left)
            else:
                self.sock.settimeout(None)
            n = self.sock.recv_into(view[got:])
            if n == 0:
                raise EOFError("peer closed the channel")
            got += n
        return bytes(buf)

    def close(self) -> None:
        self.sock.close()
