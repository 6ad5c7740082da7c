"""Value kinds of the static gate's data-path analysis (`leap.sandbox.gate.static_dataflow`).

A `Kind` is a `Tag` plus, for the kinds that name something, an argument: ``Kind(Tag.REF,
"torch.relu")`` is a reference to an imported name, ``Kind(Tag.USERMOD, "Block")`` an instance of the
candidate's class ``Block``. The lattice is small: `UNSET` (no value seen yet) below every kind,
`UNKNOWN` above them. The analysis is *default deny*: `UNKNOWN` means "possibly a tensor", so an operator
or a compute method on it is PyTorch compute; only kinds proven harmless (`SCALAR`, `OPAQUE`, ...) pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Tag(Enum):
    UNSET = "unset"          # bottom: nothing known yet (a parameter with no call site seen)
    UNKNOWN = "unknown"      # top: anything, possibly a tensor
    TENSOR = "tensor"
    TENSORS = "tensors"      # a container (tuple/list/dict) that may hold tensors
    INDEXED = "indexed"      # an (index, item) pair from enumerate(): inner = the item's kind
    ITEMS = "items"          # a container of values of one other kind (inner), e.g. a dict of kernels
    SCALAR = "scalar"        # Python numbers, strings, shapes, dtypes, devices (never a tensor)
    NONE = "none"            # the value None / a statement with no value
    OPAQUE = "opaque"        # a library object that is not a tensor (a stream, device properties)
    REF = "ref"              # an imported name used as a value: arg = qualified name
    JIT = "jit"              # a @triton.jit kernel (arg: its name, when known)
    LAUNCHER = "launcher"    # kernel[grid] or functools.partial(kernel[grid], ...): calling it launches
    CLASS = "class"          # the candidate's class: arg = class name
    USERFN = "userfn"        # the candidate's module-level function: arg = function name
    USERMOD = "usermod"      # an instance of the candidate's class: arg = class name
    TORCHMOD = "torchmod"    # a torch.nn layer instance: arg = layer name (lower case)
    TORCHMODS = "torchmods"  # nn.Sequential / ModuleList of torch.nn layers
    CALLABLE = "callable"    # a lambda or nested function (analysed where it is defined)
    EXT = "ext"              # a load_inline extension with CUDA sources
    CPPEXT = "cppext"        # a load_inline extension with C++ sources only
    RAWKERNEL = "rawkernel"  # cupy RawKernel / ElementwiseKernel / RawModule.get_function
    RAWMODULE = "rawmodule"
    PROGRAM = "program"      # cuda.core Program -> ObjectCode -> Kernel
    CCMODULE = "ccmodule"
    CCKERNEL = "cckernel"


@dataclass(frozen=True)
class Kind:
    tag: Tag
    arg: str = ""
    inner: Kind | None = None  # ITEMS: the kind of the items

    def __repr__(self) -> str:
        if self.inner is not None:
            return f"{self.tag.value}[{self.inner!r}]"
        return f"{self.tag.value}:{self.arg}" if self.arg else self.tag.value

    @property
    def maybe_tensor(self) -> bool:
        """Whether a value of this kind may be (or hold) a tensor, for default-deny checks."""
        return self.tag in (Tag.TENSOR, Tag.TENSORS, Tag.UNKNOWN, Tag.UNSET)

    @property
    def is_tensorish(self) -> bool:
        """Known to be a tensor or a container of tensors."""
        return self.tag in (Tag.TENSOR, Tag.TENSORS)

    def named(self, tag: Tag) -> str | None:
        """``arg`` when this kind has ``tag``, else None."""
        return self.arg if self.tag is tag else None


UNSET = Kind(Tag.UNSET)
UNKNOWN = Kind(Tag.UNKNOWN)
TENSOR = Kind(Tag.TENSOR)
TENSORS = Kind(Tag.TENSORS)
SCALAR = Kind(Tag.SCALAR)
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


def merge(a: Kind, b: Kind) -> Kind:
    """Join of two kinds: equal kinds stay, a tensor wins (it is flagged either way), anything else is
    `UNKNOWN` (possibly a tensor). `UNSET` and `NONE` give way to the other kind."""
    if a == b:
        return a
    if a.tag in (Tag.UNSET, Tag.NONE):
        return b
    if b.tag in (Tag.UNSET, Tag.NONE):
        return a
    if Tag.TENSOR in (a.tag, b.tag):
        return TENSOR
    if {a.tag, b.tag} == {Tag.OPAQUE, Tag.SCALAR}:
        return OPAQUE
    if {a.tag, b.tag} == {Tag.TENSORS, Tag.SCALAR} or Tag.TENSORS in (a.tag, b.tag):
        return TENSORS
    if a.tag is Tag.ITEMS and b.tag is Tag.ITEMS:
        return items(merge(a.inner or UNSET, b.inner or UNSET))
    if {a.tag, b.tag} == {Tag.ITEMS, Tag.SCALAR}:
        c = a if a.tag is Tag.ITEMS else b
        return items(merge(c.inner or UNSET, SCALAR))
    return UNKNOWN


def items(inner: Kind) -> Kind:
    """Kind of a container whose items have kind ``inner`` (tensors -> `TENSORS`, scalars -> `SCALAR`)."""
    if inner.tag in (Tag.TENSOR, Tag.TENSORS):
        return TENSORS
    if inner == SCALAR:
        return SCALAR
    if inner.tag is Tag.ITEMS and inner.inner is not None and inner.inner.tag is Tag.ITEMS:
        return UNKNOWN  # nesting this deep is not followed
    return Kind(Tag.ITEMS, inner=inner)


def container_of(container: Kind, item: Kind) -> Kind:
    """Kind of ``container`` after ``item`` is stored in it (append, ``c[k] = item``)."""
    if container.tag is Tag.TENSORS:
        return TENSORS
    if container == SCALAR:
        return items(merge(SCALAR, item))
    if container.tag is Tag.ITEMS:
        return items(merge(container.inner or UNSET, item))
    return container


def element(k: Kind) -> Kind:
    """Kind of an element of ``k`` (iterating, indexing or unpacking it)."""
    if k.tag in (Tag.TENSOR, Tag.TENSORS):
        return TENSOR
    if k.tag in (Tag.SCALAR, Tag.TORCHMODS):
        return SCALAR if k.tag is Tag.SCALAR else Kind(Tag.TORCHMOD, "sequential")
    if k.tag is Tag.OPAQUE:
        return OPAQUE
    if k.tag is Tag.ITEMS:
        return k.inner or UNSET
    if k.tag is Tag.INDEXED:
        return merge(SCALAR, k.inner or UNSET)
    return UNKNOWN
