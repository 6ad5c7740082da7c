"""The arguments of one call, as kinds, and how they bind to a function's parameters.

``f(a, *pack, k=v, **opts)``: positional kinds stay in order while their positions are known (a literal
tuple or a record of known fields expands in place); an unknown ``*`` pack covers every later position,
an unknown ``**`` pack every parameter not given by name. Omitted parameters take their default's kind;
``*args``/``**kwargs`` parameters receive records of what they collect. ``skip`` is the number of leading
parameters a ``functools.partial`` already bound.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from leap.sandbox.gate import static_kinds as K
from leap.sandbox.gate.static_kinds import UNSET, Kind, Tag, merge


@dataclass
class CallArgs:
    pos: list[Kind] = field(default_factory=list)
    nodes: list[ast.expr | None] = field(default_factory=list)  # the expression of each positional kind
    kw: dict[str, Kind] = field(default_factory=dict)
    kwnodes: dict[str, ast.expr] = field(default_factory=dict)
    star: Kind | None = None     # items of a * pack at positions not known
    kwstar: Kind | None = None   # values of a ** pack under names not known

    def kinds(self) -> list[Kind]:
        return [*self.pos, *self.kw.values(), *(k for k in (self.star, self.kwstar) if k is not None)]

    @property
    def tensor(self) -> bool:
        return any(k.maybe_tensor for k in self.kinds())

    def positional(self) -> list[Kind]:
        """Positional kinds, the unknown pack's items last (for functions that take any number)."""
        return [*self.pos, *([self.star] if self.star is not None else [])]


def expand(args: list[ast.expr], keywords: list[ast.keyword], kind_of) -> CallArgs:
    """A call's arguments as kinds; ``kind_of(expr)`` gives an expression's kind."""
    out = CallArgs()
    for a in args:
        if isinstance(a, ast.Starred):
            if isinstance(a.value, ast.Tuple | ast.List) and out.star is None:
                for x in a.value.elts:
                    _positional(out, x, kind_of)
                continue
            k = kind_of(a.value)
            if k.tag is Tag.RECORD and out.star is None and all(n.isdigit() for n, _ in k.fields):
                for _, v in sorted(k.fields, key=lambda f: int(f[0])):
                    out.pos.append(v)
                    out.nodes.append(None)
            else:
                out.star = merge(out.star or UNSET, K.element(k))
        else:
            _positional(out, a, kind_of)
    for kw in keywords:
        k = kind_of(kw.value)
        if kw.arg is not None:
            out.kw[kw.arg] = k
            out.kwnodes[kw.arg] = kw.value
        elif isinstance(kw.value, ast.Dict) and all(isinstance(x, ast.Constant) and isinstance(x.value, str)
                                                    for x in kw.value.keys):
            for key, v in zip(kw.value.keys, kw.value.values, strict=True):
                out.kw[key.value] = kind_of(v)
        elif k.tag is Tag.RECORD and not any(n.isdigit() for n, _ in k.fields):
            out.kw.update(k.fields)
        else:
            out.kwstar = merge(out.kwstar or UNSET, K.element(k))
    return out


def _positional(out: CallArgs, a: ast.expr, kind_of) -> None:
    k = kind_of(a)
    if out.star is not None:  # after an unknown pack: its position is not known either
        out.star = merge(out.star, k)
    else:
        out.pos.append(k)
        out.nodes.append(a)


def of_kinds(pos: list[Kind], kw: dict[str, Kind] | None = None) -> CallArgs:
    """Arguments known only by kind (no expressions)."""
    return CallArgs(list(pos), [None] * len(pos), dict(kw or {}))


@dataclass(frozen=True)
class Params:
    """What a function declares: positional parameter names (after ``self``), keyword-only names and the
    ``*``/``**`` parameters."""

    positional: tuple[str, ...]
    kwonly: tuple[str, ...] = ()
    vararg: str | None = None
    kwarg: str | None = None


def params_of(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, offset: int = 0) -> Params:
    a = node.args
    pos = tuple(x.arg for x in [*a.posonlyargs, *a.args])[offset:]
    return Params(pos, tuple(x.arg for x in a.kwonlyargs), a.vararg.arg if a.vararg else None,
                  a.kwarg.arg if a.kwarg else None)


def bind(p: Params, args: CallArgs, defaults: dict[str, Kind], skip: int = 0) -> dict[str, tuple[Kind, ast.expr | None]]:
    """Each parameter's kind at this call (and the argument expression, when one is known)."""
    out: dict[str, tuple[Kind, ast.expr | None]] = {}
    for i, name in enumerate(p.positional):
        if i < skip:
            continue
        j = i - skip
        if j < len(args.pos):
            out[name] = (args.pos[j], args.nodes[j])
            continue
        out[name] = (_named(name, args, defaults), args.kwnodes.get(name))
    for name in p.kwonly:
        out[name] = (_named(name, args, defaults), args.kwnodes.get(name))
    if p.vararg is not None:
        extra = args.pos[max(len(p.positional) - skip, 0):]
        k = K.record((str(i), v) for i, v in enumerate(extra))
        out[p.vararg] = (merge(k, K.items(args.star)) if args.star is not None else k, None)
    if p.kwarg is not None:
        named = {n: v for n, v in args.kw.items() if n not in p.positional and n not in p.kwonly}
        k = K.record(named.items())
        out[p.kwarg] = (merge(k, K.items(args.kwstar)) if args.kwstar is not None else k, None)
    return out


def _named(name: str, args: CallArgs, defaults: dict[str, Kind]) -> Kind:
    if name in args.kw:
        return args.kw[name]
    k = UNSET
    for pack in (args.star, args.kwstar):
        if pack is not None:
            k = merge(k, pack)
    if name in defaults:
        k = merge(k, defaults[name])
    return k
