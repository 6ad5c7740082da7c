"""Run-time backstop, second half: tensor values read out to the host during ``forward`` (CPU, issue 12).

The dispatch mode (`compute_guard`) sees every PyTorch op, but not numpy or Python computing on values
that left the tensor world: ``x.numpy()`` then ``np.maximum``, ``x.tolist()`` then a list comprehension,
``float(x[i])`` in a loop, the bytes of ``x.untyped_storage()``. Every such route starts with a read-out, so
the harness wraps the read-outs (`READERS`, before the candidate is imported) and notes each use while
armed. A wrapper on ``torch.Tensor`` is passed by reaching PyTorch's C method itself (``super(torch.Tensor,
x).numpy()``), so a profile function (`profiler`, ``sys.setprofile`` while armed, off inside a launch) also
notes calls of the C read-outs (`C_READERS`) by name and owner, however they were reached. The Triton CPU interpreter reads tensors through their storages' raw pointers inside a launch, never
through these, so a legitimate Triton kernel notes nothing; storage getters are only noted outside a launch
(the interpreter takes storages of its arguments). Scalar reads (``item``, ``float(t)``, ``tolist``) are
counted against a budget (`SCALAR_BUDGET`): a legitimate forward reads a few sizes or flags, host compute
reads every element.
"""

from __future__ import annotations

import torch

# (class, method): reading one is a read-out of tensor values to the host, noted whenever armed
READERS = (
    (torch.Tensor, "numpy"), (torch.Tensor, "__array__"), (torch.Tensor, "__dlpack__"),
    (torch.Tensor, "__reduce_ex__"), (torch.Tensor, "__reduce__"),
    (torch.Tensor, "apply_"), (torch.Tensor, "map_"), (torch.Tensor, "map2_"),  # a Python callable per element
    (torch.UntypedStorage, "tolist"), (torch.UntypedStorage, "__getitem__"), (torch.UntypedStorage, "__iter__"),
    (torch.UntypedStorage, "_write_file"), (torch.UntypedStorage, "__reduce__"),
    (torch.UntypedStorage, "__reduce_ex__"), (torch.UntypedStorage, "_share_filename_cpu_"),
    (torch.UntypedStorage, "_share_fd_cpu_"), (torch.UntypedStorage, "share_memory_"),
    (torch.TypedStorage, "tolist"), (torch.TypedStorage, "__getitem__"), (torch.TypedStorage, "__iter__"),
    (torch.TypedStorage, "_write_file"), (torch.TypedStorage, "__reduce__"), (torch.TypedStorage, "share_memory_"),
)
# (module, function): the same, as module functions
MODULE_READERS = (("torch.utils.dlpack", "to_dlpack"), ("torch", "to_dlpack"), ("torch", "save"),
                  ("torch.serialization", "save"))
# storage getters: the interpreter takes its arguments' storages inside a launch; outside one, noted
STORAGE_GETTERS = ((torch.Tensor, "untyped_storage"), (torch.Tensor, "storage"), (torch.Tensor, "_typed_storage"))
# scalar reads (`item`/`float(t)`/`int(t)`/`bool(t)` as aten ``_local_scalar_dense``, ``tolist``'s elements)
# allowed per forward outside a launch; host compute reads every element of its input
SCALAR_BUDGET = 128
SCALAR_OPS = frozenset({"_local_scalar_dense", "is_nonzero"})
# C methods (by name) of tensors, storages and torch._C that read values out, seen by the profile function
C_READERS = frozenset({"numpy", "tolist", "__dlpack__", "apply_", "map_", "map2_", "_to_dlpack", "_write_file", "_share_filename_cpu_",
                       "_share_fd_cpu_", "_new_shared_filename_cpu", "_new_shared_fd_cpu"})
C_OWNERS = (torch._C.TensorBase, torch._C.StorageBase)
# the originals, bound before any candidate code: the harness's own storage reads while armed go through these
untyped_storage = torch._C.TensorBase.untyped_storage


def watch(state: list, noted: dict) -> None:
    """Wrap `READERS`, `MODULE_READERS`, `STORAGE_GETTERS` and ``Tensor.tolist``: each use while armed
    (``state[0]``) is counted in ``noted`` (storage getters only outside a launch, ``state[5]`` the launch
    depth; ``tolist`` adds its elements to ``state[6]``, the scalar reads)."""

    for cls, attr in READERS:
        if hasattr(cls, attr):
            setattr(cls, attr, noting(getattr(cls, attr), f"{cls.__name__}.{attr}", state, noted, False))
    for cls, attr in STORAGE_GETTERS:
        if hasattr(cls, attr):
            setattr(cls, attr, noting(getattr(cls, attr), f"{cls.__name__}.{attr}", state, noted, True))
    note_module_functions(MODULE_READERS, state, noted)
    torch.Tensor.tolist = _counting_tolist(torch.Tensor.tolist, state)


def profiler(state: list, noted: dict):
    """The profile function the guard sets while armed: a C read-out (`C_READERS`) called on a tensor, a storage
    or ``torch._C`` is noted (a tensor's ``tolist`` counts its elements as scalar reads instead), except the
    calls our own wrappers make."""
    owners, names, here = C_OWNERS, C_READERS, __file__
    isinstance_, getattr_, c_module = isinstance, getattr, torch._C

    def profile(frame, event, arg):
        if event != "c_call" or frame.f_code.co_filename == here:  # our wrappers noted their call already
            return
        name = getattr_(arg, "__name__", "")
        if name not in names:
            return
        owner = getattr_(arg, "__self__", None)
        if name == "tolist" and isinstance_(owner, torch._C.TensorBase):
            state[6] += owner.numel()
        elif isinstance_(owner, owners) or owner is c_module:
            key = f"{type(owner).__name__}.{name} (C)"
            noted[key] = noted.get(key, 0) + 1

    return profile


def note_module_functions(names, state: list, noted: dict) -> None:
    """Replace each ``(module, function)`` of ``names`` by its `noting` wrapper (those this build lacks: none)."""
    import importlib

    for mod_name, attr in names:
        try:
            mod = importlib.import_module(mod_name)
            original = getattr(mod, attr)
        except (ImportError, AttributeError):  # pragma: no cover - not in this torch build
            continue
        setattr(mod, attr, noting(original, f"{mod_name}.{attr}", state, noted))


def noting(original, name: str, state: list, noted: dict, outside_launch_only: bool = False):
    """``original`` wrapped: each call while armed (``state[0]``; with ``outside_launch_only``, not inside a
    launch) is counted in ``noted[name]``."""
    def call(*args, **kwargs):
        if state[0] and not (outside_launch_only and state[5]):
            noted[name] = noted.get(name, 0) + 1
        return original(*args, **kwargs)

    call.__name__ = call.__qualname__ = getattr(original, "__name__", name)
    call.__doc__ = getattr(original, "__doc__", None)
    return call


def _counting_tolist(original, state: list):
    def tolist(self, *args, **kwargs):
        if state[0]:
            state[6] += self.numel()
        return original(self, *args, **kwargs)

    tolist.__name__ = tolist.__qualname__ = "tolist"
    return tolist


def problems(noted: dict, scalars: int) -> list[str]:
    """What the read-outs noted during the armed runs (``scalars``: scalar reads, over all runs)."""
    out = []
    if noted:
        reads = ", ".join(f"{k} x{v}" for k, v in sorted(noted.items(), key=lambda kv: -kv[1])[:6])
        out.append(f"forward read tensor values out to the host (numpy, lists, bytes): {reads}")
    if scalars > SCALAR_BUDGET:
        out.append(f"forward read {scalars} tensor values one by one into Python (item, float, tolist; "
                   f"more than {SCALAR_BUDGET} is host compute)")
    return out
