"""Zero-copy transport of CUDA tensors between the judge and a candidate's child (CUDA IPC).

Trial inputs of full-size GPU tasks are hundreds of MiB; sending them judge -> child -> judge through
files costs seconds per candidate. Instead each tensor is copied into a DEDICATED ``cudaMalloc``
allocation (never a caching-allocator segment, which could hold the judge's references next to it) and
its legacy IPC handle (64 bytes) travels in the JSON job or message. The receiver maps the handle, clones
the bytes into its own tensor and unmaps at once, so an exporter may free its buffer as soon as the peer
has answered.

Records are plain JSON: ``{"ipc": hex handle, "nbytes", "dtype", "shape"}``. Records arriving from a
child are validated (dtype allowlist, sizes consistent, bounded) before any mapping. Loading libcudart goes
through the copy torch already loaded; where CUDA IPC is unavailable the sandbox keeps the file transport.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import threading

import torch

MAX_BYTES = 64 << 30
DTYPES = {str(d).removeprefix("torch."): d for d in (
    torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int16,
    torch.int32, torch.int64, torch.bool, torch.complex64, torch.complex128)}
_ITEMSIZE = {d: torch.empty((), dtype=d).element_size() for d in DTYPES.values()}
_LAZY_PEER_ACCESS = 1
_lib = None
_lib_lock = threading.Lock()


class IpcError(RuntimeError):
    """A CUDA IPC call failed or a record was malformed."""


class _Handle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * 64)]


def _cudart():
    """The CUDA runtime torch loaded (found in this process's maps), else the system's."""
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        path = None
        try:
            with open("/proc/self/maps") as f:
                for line in f:
                    if "libcudart.so" in line:
                        path = line.split()[-1]
                        break
        except OSError:
            pass
        path = path or ctypes.util.find_library("cudart")
        if not path:
            raise IpcError("libcudart not found")
        lib = ctypes.CDLL(path)
        lib.cudaIpcGetMemHandle.argtypes = [ctypes.POINTER(_Handle), ctypes.c_void_p]
        lib.cudaIpcOpenMemHandle.argtypes = [ctypes.POINTER(ctypes.c_void_p), _Handle, ctypes.c_uint]
        lib.cudaIpcCloseMemHandle.argtypes = [ctypes.c_void_p]
        lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        lib.cudaFree.argtypes = [ctypes.c_void_p]
        lib.cudaSetDevice.argtypes = [ctypes.c_int]
        lib.cudaGetErrorString.restype = ctypes.c_char_p
        _lib = lib
        return lib


def _check(rc: int, what: str) -> None:
    if rc != 0:
        msg = _cudart().cudaGetErrorString(rc)
        raise IpcError(f"{what}: CUDA error {rc} ({msg.decode() if msg else '?'})")


def available() -> bool:
    """True where torch sees a GPU and the runtime's IPC entry points load."""
    try:
        return torch.cuda.is_available() and _cudart() is not None
    except (IpcError, OSError, AttributeError):
        return False


class _Raw:
    """A device pointer wrapped for ``torch.as_tensor`` (no ownership)."""

    def __init__(self, ptr: int, nbytes: int):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr, False),
                                         "version": 3, "strides": None, "stream": None}


def _view(ptr: int, nbytes: int, device: torch.device) -> torch.Tensor:
    with torch.cuda.device(device):
        return torch.as_tensor(_Raw(ptr, nbytes), device=device)


class Exported:
    """Dedicated device buffers holding copies of tensors, with their IPC records; free() releases."""

    def __init__(self):
        self._ptrs: list[tuple[int, torch.device]] = []

    def export(self, t: torch.Tensor) -> dict:
        """Copy ``t`` (a CUDA tensor) into a fresh allocation; its JSON record."""
        if not (isinstance(t, torch.Tensor) and t.is_cuda):
            raise IpcError("only CUDA tensors travel by IPC")
        src = t.detach().contiguous()
        nbytes = src.numel() * src.element_size()
        rec = {"nbytes": nbytes, "dtype": str(src.dtype).removeprefix("torch."), "shape": list(src.shape)}
        if nbytes == 0:
            return {**rec, "ipc": ""}
        lib = _cudart()
        dev = src.device
        with torch.cuda.device(dev):
            _check(lib.cudaSetDevice(dev.index or 0), "cudaSetDevice")
            ptr = ctypes.c_void_p()
            _check(lib.cudaMalloc(ctypes.byref(ptr), nbytes), "cudaMalloc")
            self._ptrs.append((ptr.value, dev))
            _view(ptr.value, nbytes, dev).copy_(src.view(-1).view(torch.uint8))
            torch.cuda.synchronize(dev)
            h = _Handle()
            _check(lib.cudaIpcGetMemHandle(ctypes.byref(h), ptr), "cudaIpcGetMemHandle")
        return {**rec, "ipc": bytes(h).hex()}  # the whole struct (.reserved would stop at a NUL byte)

    def free(self) -> None:
        if not self._ptrs:
            return
        lib = _cudart()
        for ptr, dev in self._ptrs:
            with torch.cuda.device(dev):
                lib.cudaSetDevice(dev.index or 0)
                lib.cudaFree(ctypes.c_void_p(ptr))
        self._ptrs.clear()


def validate(rec) -> tuple[torch.dtype, list[int], int]:
    """The dtype, shape and size of a record from an untrusted peer, or IpcError."""
    if not isinstance(rec, dict):
        raise IpcError("IPC record is not an object")
    dtype = DTYPES.get(rec.get("dtype")) if isinstance(rec.get("dtype"), str) else None
    shape, nbytes, handle = rec.get("shape"), rec.get("nbytes"), rec.get("ipc")
    if dtype is None:
        raise IpcError(f"IPC record: dtype {rec.get('dtype')!r} not allowed")
    if not (isinstance(shape, list) and len(shape) <= 16 and all(isinstance(s, int) and s >= 0 for s in shape)):
        raise IpcError("IPC record: shape must be a list of non-negative ints")
    size = math.prod(shape) * _ITEMSIZE[dtype]
    if not isinstance(nbytes, int) or nbytes != size or nbytes > MAX_BYTES:
        raise IpcError(f"IPC record: nbytes {nbytes!r} does not match shape and dtype ({size})")
    if not isinstance(handle, str) or (nbytes and len(handle) != 128):
        raise IpcError("IPC record: bad handle")
    return dtype, shape, nbytes


def receive(rec: dict, device: torch.device | str) -> torch.Tensor:
    """Map a peer's buffer, clone it into a tensor of our own on ``device``, unmap."""
    dtype, shape, nbytes = validate(rec)
    device = torch.device(device)
    if nbytes == 0:
        return torch.empty(shape, dtype=dtype, device=device)
    try:
        raw = bytes.fromhex(rec["ipc"])
    except ValueError as exc:
        raise IpcError("IPC record: handle is not hex") from exc
    lib = _cudart()
    h = _Handle()
    ctypes.memmove(ctypes.byref(h), raw, 64)
    with torch.cuda.device(device):
        _check(lib.cudaSetDevice(device.index or 0), "cudaSetDevice")
        ptr = ctypes.c_void_p()
        _check(lib.cudaIpcOpenMemHandle(ctypes.byref(ptr), h, _LAZY_PEER_ACCESS), "cudaIpcOpenMemHandle")
        try:
            out = _view(ptr.value, nbytes, device).clone()
            torch.cuda.synchronize(device)
        finally:
            lib.cudaIpcCloseMemHandle(ptr)
    return out.view(dtype).view(shape)
