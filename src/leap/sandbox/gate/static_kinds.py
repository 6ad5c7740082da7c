"""Value kinds of the static gate's data-path analysis (`leap.sandbox.gate.static_dataflow`).

A `Kind` is a `Tag` plus, for the kinds that name something, an argument: ``Kind(Tag.REF,
"torch.relu")`` is a reference to an imported name, ``Kind(Tag.USERMOD, "Block")`` an instance of the
candidate's class ``Block``. Kernels, launchers, callables and user functions may name several
candidates at once (``"a|b"``, the join of two branches). The lattice is small: `UNSET` (no value seen
yet) below every kind, `UNKNOWN` above them. The analysis is *default deny*: `UNKNOWN` means "possibly a
tensor", so an operator or a compute method on it is PyTorch compute; only kinds proven harmless
(`SCALAR`, `OPAQUE`, ...) pass, and a container is harmless only when everything in it is.

Two kinds carry a flavour in ``arg``. `DATA` (``Kind(Tag.TENSOR, "data")``) is tensor data read out as
Python values (``.item()``, ``int(t)``, ``range(v)``, ``str(v)``) or a tensor or array built from them:
everything computed from it, its length, its shape and its truth value are data too, and a container
holding it is data (`has_data`). A `SCALAR` may be flavoured ``"seq"`` (a sequence: a shape, a list of
numbers; numpy builds an array from it) and ``"dtype"`` (a dtype; ``t.to(d)`` converts): a join keeps
every flavour (``"dtype|seq"``), an element of a sequence keeps all but ``"seq"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Tag(Enum):
    UNSET = "unset"          # bottom: nothing known yet (a parameter with no call site seen)
    UNKNOWN = "unknown"      # top: anything, possibly a tensor
    TENSOR = "tensor"        # a tensor, an array, or data read out of one (.item(), .tolist())
    TENSORS = "tensors"      # a container (tuple/list/dict) that may hold tensors
    INDEXED = "indexed"      # an (index, item) pair from enumerate(): inner = the item's kind
    ITEMS = "items"          # a container of values of one other kind (inner), e.g. a dict of kernels
    RECORD = "record"        # fields known by key: *args/**kwargs packs, namedtuple instances
    RECORDTYPE = "recordtype"  # a namedtuple class made by collections.namedtuple: arg = field names
    SCALAR = "scalar"        # Python numbers, strings, shapes, dtypes, devices (never a tensor)
    NONE = "none"            # the value None / a statement with no value
    OPAQUE = "opaque"        # a library object that is not a tensor (a stream, device properties)
    REF = "ref"              # an imported name used as a value: arg = qualified name
    JIT = "jit"              # a @triton.jit kernel: arg = kernel names ("a|b"), "" when not known
    LAUNCHER = "launcher"    # kernel[grid]: arg = kernel names, inner = the grid's kind
    META = "meta"            # the bound-arguments dict Triton hands a grid or heuristic: arg = kernels
    CLASS = "class"          # the candidate's class: arg = class name
    USERFN = "userfn"        # the candidate's function or method ("Cls.meth"): arg = names ("f|g")
    USERMOD = "usermod"      # an instance of the candidate's class: arg = class name
    SUPER = "super"          # super(): arg = the class it was called in
    TORCHMOD = "torchmod"    # a torch.nn layer instance: arg = layer name (lower case)
    TORCHMODS = "torchmods"  # nn.Sequential / ModuleList of torch.nn layers
    CALLABLE = "callable"    # lambdas or nested functions (analysed where defined): arg = ids ("1|2")
    CTX = "ctx"              # the ctx of a torch.autograd.Function's forward/backward: arg = the class
    EXT = "ext"              # a load_inline extension with CUDA sources
    CPPEXT = "cppext"        # a load_inline extension with C++ sources only
    RAWKERNEL = "rawkernel"  # cupy RawKernel / ElementwiseKernel / RawModule.get_function
    RAWMODULE = "rawmodule"
    PROGRAM = "program"      # cuda.core Program -> ObjectCode -> Kernel
    CCMODULE = "ccmodule"
    CCKERNEL = "cckernel"


# What a function's (or a lambda's) record of launches holds besides backend names: the functions and
# lambdas it calls, followed from ModelNew's forward once the analysis is done.
CALLS_FUNCTION = "@fn:"
CALLS_CALLABLE = "@cb:"
_UNIONS = (Tag.JIT, Tag.LAUNCHER, Tag.META, Tag.CALLABLE, Tag.USERFN)  # join keeps every name


@dataclass(frozen=True)
class Kind:
    tag: Tag
    arg: str = ""
    inner: Kind | None = None                   # ITEMS / INDEXED: the items' kind; LAUNCHER: the grid's
    fields: tuple[tuple[str, Kind], ...] = ()   # RECORD: (key, kind) in order
    bound: int = 0                              # functools.partial: positional arguments already bound

    def __repr__(self) -> str:
        if self.tag is Tag.RECORD:
            return "record{" + ", ".join(f"{k}: {v!r}" for k, v in self.fields) + "}"
        if self.inner is not None:
            return f"{self.tag.value}[{self.inner!r}]"
        return f"{self.tag.value}:{self.arg}" if self.arg else self.tag.value

    @property
    def maybe_tensor(self) -> bool:
        """Whether a value of this kind may be (or hold, at any depth) a tensor, for default-deny checks.
        An empty container (items of nothing yet) holds none."""
        if self.tag in (Tag.TENSOR, Tag.TENSORS, Tag.UNKNOWN, Tag.UNSET, Tag.META):
            return True
        if self.tag in (Tag.ITEMS, Tag.INDEXED):
            return self.inner is not None and self.inner.tag is not Tag.UNSET and self.inner.maybe_tensor
        if self.tag is Tag.RECORD:
            return any(k.tag is not Tag.UNSET and k.maybe_tensor for _, k in self.fields)
        return False

    @property
    def has_data(self) -> bool:
        """Whether this is, or holds at any depth, tensor data read out as Python values (`DATA`)."""
        if self.tag is Tag.TENSOR:
            return self.arg == "data"
        if self.tag in (Tag.ITEMS, Tag.INDEXED):
            return self.inner is not None and self.inner.has_data
        if self.tag is Tag.RECORD:
            return any(k.has_data for _, k in self.fields)
        return False

    @property
    def flavours(self) -> frozenset[str]:
        """A `SCALAR`'s flavours (``"seq"``, ``"dtype"``)."""
        return frozenset(self.arg.split("|")) - {""} if self.tag is Tag.SCALAR else frozenset()

    @property
    def is_tensorish(self) -> bool:
        """Known to be a tensor or a container of tensors."""
        return self.tag in (Tag.TENSOR, Tag.TENSORS)

    @property
    def names(self) -> tuple[str, ...]:
        """The candidates a union kind names (kernels, callables, functions)."""
        return tuple(n for n in self.arg.split("|") if n)

    def named(self, tag: Tag) -> str | None:
        """``arg`` when this kind has ``tag``, else None."""
        return self.arg if self.tag is tag else None


UNSET = Kind(Tag.UNSET)
UNKNOWN = Kind(Tag.UNKNOWN)
TENSOR = Kind(Tag.TENSOR)
TENSORS = Kind(Tag.TENSORS)
SCALAR = Kind(Tag.SCALAR)
SEQ = Kind(Tag.SCALAR, "seq")        # a sequence of numbers (a shape, a list of constants)
DTYPE = Kind(Tag.SCALAR, "dtype")    # a dtype
DATA = Kind(Tag.TENSOR, "data")      # tensor data read out as Python values, or a tensor built from them
NONE = Kind(Tag.NONE)
OPAQUE = Kind(Tag.OPAQUE)
JIT = Kind(Tag.JIT)
LAUNCHER = Kind(Tag.LAUNCHER)
CALLABLE = Kind(Tag.CALLABLE)
EXT = Kind(Tag.EXT)
CPPEXT = Kind(Tag.CPPEXT)
RAWKERNEL = Kind(Tag.RAWKERNEL)
RAWMODULE = Kind(Tag.RAWMODULE)
PROGRAM = Kind(Tag.PROGRAM)
CCMODULE = Kind(Tag.CCMODULE)
CCKERNEL = Kind(Tag.CCKERNEL)
TORCHMODS = Kind(Tag.TORCHMODS)


def ref(q: str) -> Kind:
    return Kind(Tag.REF, q)


def scalar(flavours) -> Kind:
    """A `SCALAR` with the given flavours."""
    return Kind(Tag.SCALAR, "|".join(sorted(set(flavours) - {""})))


def tainted(out: Kind, inputs) -> Kind:
    """``out``, or `DATA` when one of ``inputs`` holds tensor data and ``out`` does not show it: what is
    computed from data (by a call, an opaque function, a library) is data."""
    return DATA if not out.has_data and any(k.has_data for k in inputs) else out


def union_arg(a: str, b: str) -> str:
    """The names of two union kinds together ("" = not known, which absorbs the rest)."""
    if not a or not b:
        return ""
    return "|".join(sorted(set(a.split("|")) | set(b.split("|"))))


def merge(a: Kind, b: Kind) -> Kind:
    """Join of two kinds: equal kinds stay, a tensor wins (it is flagged either way) and data wins over it,
    kernels, launchers, callables and functions keep every name, records keep every field, scalars every
    flavour; anything else is `UNKNOWN` (possibly a tensor). `UNSET` and `NONE` give way to the other kind."""
    if a == b:
        return a
    out = _merge(a, b)
    return tainted(out, (a, b))


def _merge(a: Kind, b: Kind) -> Kind:
    if a.tag in (Tag.UNSET, Tag.NONE):
        return b
    if b.tag in (Tag.UNSET, Tag.NONE):
        return a
    if a.tag is Tag.SCALAR and b.tag is Tag.SCALAR:
        return scalar(a.flavours | b.flavours)
    if Tag.TENSOR in (a.tag, b.tag):
        return TENSOR
    if a.tag is b.tag and a.tag in _UNIONS and a.bound == b.bound:
        inner = merge(a.inner, b.inner) if a.inner is not None and b.inner is not None else (a.inner or b.inner)
        return Kind(a.tag, union_arg(a.arg, b.arg), inner, bound=a.bound)
    if a.tag is Tag.RECORD and b.tag is Tag.RECORD:
        da, db = dict(a.fields), dict(b.fields)
        keys = list(dict.fromkeys([*da, *db]))
        return Kind(Tag.RECORD, fields=tuple((k, merge(da.get(k, UNSET), db.get(k, UNSET))) for k in keys))
    if Tag.RECORD in (a.tag, b.tag):
        r, o = (a, b) if a.tag is Tag.RECORD else (b, a)
        return merge(items(element(r)), o)
    if {a.tag, b.tag} == {Tag.OPAQUE, Tag.SCALAR}:
        return OPAQUE
    if Tag.TENSORS in (a.tag, b.tag):
        return TENSORS
    if a.tag is Tag.ITEMS and b.tag is Tag.ITEMS:
        return items(merge(a.inner or UNSET, b.inner or UNSET))
    if {a.tag, b.tag} == {Tag.ITEMS, Tag.SCALAR}:
        c, o = (a, b) if a.tag is Tag.ITEMS else (b, a)
        return items(merge(c.inner or UNSET, element(o)))
    return UNKNOWN


def join(ks) -> Kind:
    out = UNSET
    for k in ks:
        out = merge(out, k)
    return out


def items(inner: Kind) -> Kind:
    """Kind of a container whose items have kind ``inner`` (data -> `DATA`, tensors -> `TENSORS`, scalars ->
    a `SCALAR` sequence)."""
    if inner.has_data:
        return DATA
    if inner.tag in (Tag.TENSOR, Tag.TENSORS):
        return TENSORS
    if inner.tag is Tag.SCALAR:
        return scalar(inner.flavours | {"seq"})
    if inner.tag is Tag.ITEMS and inner.inner is not None and inner.inner.tag is Tag.ITEMS:
        return UNKNOWN  # nesting this deep is not followed
    if inner.tag is Tag.RECORD:
        return items(element(inner)) if any(k.tag is Tag.RECORD for _, k in inner.fields) else Kind(
            Tag.ITEMS, inner=inner)
    return Kind(Tag.ITEMS, inner=inner)


def record(fields) -> Kind:
    """A record of ``(key, kind)`` pairs (positional packs use the keys "0", "1", ...)."""
    return Kind(Tag.RECORD, fields=tuple(fields))


def field(k: Kind, key: str | int) -> Kind:
    """Kind of field ``key`` (a name, or a position) of ``k``; a record without it, or any other
    container, gives its element kind."""
    if k.tag is Tag.RECORD:
        d = dict(k.fields)
        if isinstance(key, int):
            if all(n.isdigit() for n in d):
                got = d.get(str(key), UNSET)
                return got if got.tag is not Tag.UNSET else element(k)
            return element(k)
        got = d.get(key, UNSET)
        return got if got.tag is not Tag.UNSET else element(k)
    return element(k)


def container_of(container: Kind, item: Kind) -> Kind:
    """Kind of ``container`` after ``item`` is stored in it (append, ``c[k] = item``)."""
    if item.has_data:
        return DATA
    if container.tag is Tag.TENSORS:
        return TENSORS
    if container.tag is Tag.SCALAR:
        return items(merge(element(container), item))
    if container.tag is Tag.ITEMS:
        return items(merge(container.inner or UNSET, item))
    if container.tag is Tag.RECORD:
        return items(merge(element(container), item))
    if container.tag in (Tag.UNKNOWN, Tag.UNSET):
        return UNKNOWN
    return container if not item.maybe_tensor else merge(container, TENSORS)


def element(k: Kind) -> Kind:
    """Kind of an element of ``k`` (iterating, indexing or unpacking it)."""
    if k.tag is Tag.TENSOR:
        return k
    if k.tag is Tag.TENSORS:
        return TENSOR
    if k.tag is Tag.SCALAR:
        return scalar(k.flavours - {"seq"})
    if k.tag is Tag.TORCHMODS:
        return Kind(Tag.TORCHMOD, "sequential")
    if k.tag is Tag.OPAQUE:
        return OPAQUE
    if k.tag is Tag.ITEMS:
        return k.inner or UNSET
    if k.tag is Tag.INDEXED:
        return merge(SCALAR, k.inner or UNSET)
    if k.tag is Tag.RECORD:
        return join(v for _, v in k.fields)
    return UNKNOWN


def host_object(k: Kind) -> bool:
    """A Python object that is not data: a function, class, module, instance or extension. Passing one to
    a Triton kernel hands it, unconverted, to the kernel body (the CPU interpreter runs it as Python)."""
    if k.tag in (Tag.ITEMS, Tag.INDEXED):
        return k.inner is not None and host_object(k.inner)
    if k.tag is Tag.RECORD:
        return any(host_object(v) for _, v in k.fields)
    return k.tag not in (Tag.UNSET, Tag.UNKNOWN, Tag.TENSOR, Tag.TENSORS, Tag.SCALAR, Tag.NONE, Tag.JIT)
