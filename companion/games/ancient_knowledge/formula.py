"""End-game formulas and technology requirements, parsed by a small recursive-descent parser.

The grammars are those of ``assets/ancient-knowledge/README.md``::

    expr   := term ('+' term)*
    term   := factor ('*' factor)*
    factor := INTEGER | COUNT | '(' expr ')'
            | 'min' '(' expr (',' expr)* ')' | 'max' '(' expr (',' expr)* ')'
            | 'step' '(' expr ';' T ':' V (',' T ':' V)* ')'      -- T strictly ascending
    requirement := cond ('&' cond)*        -- empty text = no requirement
    cond        := expr ('>=' | '<=') INTEGER

Nothing is ever passed to ``eval``: a formula becomes a tree of small frozen nodes that evaluate
themselves against a mapping of counts (``{"past.city": 5, ...}``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from companion.errors import present

# Every count a formula or requirement may name (README, "Counts used in formulas and requirements").
COUNTS = (
    "past.city", "past.megalith", "past.pyramid", "past.any", "past.endgame",
    "techs.ancient", "techs.writing", "techs.secret", "techs.any",
    "artifacts", "lost_knowledge", "timeline.any", "hand",
)


class FormulaError(ValueError):
    """A descriptor that does not follow the grammar; ``column`` is 1-based in the text."""

    def __init__(self, message: str, column: int):
        super().__init__(f"column {column}: {message}")
        self.message = message
        self.column = column


# ---------------------------------------------------------------------------------------------
# Tree


class Node:
    def value(self, counts: Mapping[str, int]) -> int:
        raise NotImplementedError

    def counts_used(self) -> tuple[str, ...]:
        """The counts this node reads, in order of first appearance, each once."""
        seen: list[str] = []
        for child in self._children():
            for name in child.counts_used():
                if name not in seen:
                    seen.append(name)
        return tuple(seen)

    def _children(self) -> tuple[Node, ...]:
        return ()


@dataclass(frozen=True)
class Num(Node):
    n: int

    def value(self, counts):
        return self.n


@dataclass(frozen=True)
class Count(Node):
    name: str

    def value(self, counts):
        return int(counts[self.name])

    def counts_used(self):
        return (self.name,)


@dataclass(frozen=True)
class _Many(Node):
    """A node over several items whose values ``combine`` makes one (a sum, product, min or max)."""

    items: tuple[Node, ...]
    combine: ClassVar[Callable[..., int]]

    def value(self, counts):
        return self.combine(i.value(counts) for i in self.items)

    def _children(self):
        return self.items


@dataclass(frozen=True)
class Sum(_Many):
    combine = staticmethod(sum)


@dataclass(frozen=True)
class Product(_Many):
    combine = staticmethod(math.prod)


@dataclass(frozen=True)
class Min(_Many):
    combine = staticmethod(min)


@dataclass(frozen=True)
class Max(_Many):
    combine = staticmethod(max)


@dataclass(frozen=True)
class Step(Node):
    """``step(x; T1:V1, T2:V2)``: Vi for the largest Ti with x >= Ti, 0 below T1."""

    x: Node
    steps: tuple[tuple[int, int], ...]

    def value(self, counts):
        x = self.x.value(counts)
        out = 0
        for threshold, v in self.steps:
            if x >= threshold:
                out = v
        return out

    def _children(self):
        return (self.x,)


@dataclass(frozen=True)
class Formula:
    """A parsed end-game formula, with its source text."""

    text: str
    root: Node

    def value(self, counts: Mapping[str, int]) -> int:
        return self.root.value(counts)

    def counts_used(self) -> tuple[str, ...]:
        return self.root.counts_used()


@dataclass(frozen=True)
class Cond:
    text: str        # the condition as written, e.g. "past.city>=3"
    expr: Node
    op: str          # ">=" or "<="
    bound: int

    def holds(self, counts: Mapping[str, int], lowered: bool = False) -> bool:
        """``lowered``: the bound of a ``>=`` condition is taken 1 lower (never below 0)."""
        v = self.expr.value(counts)
        if self.op == ">=":
            return v >= (max(0, self.bound - 1) if lowered else self.bound)
        return v <= self.bound


@dataclass(frozen=True)
class Requirement:
    """All conditions must hold; no conditions = no requirement."""

    text: str
    conds: tuple[Cond, ...]

    def holds(self, counts: Mapping[str, int], lower_one: bool = False) -> bool:
        """``lower_one``: one ``>=`` number may be taken 1 lower (the Candi Sukuh modifier).

        Lowering a ``<=`` bound only makes it stricter, so no one would choose it; lowering one
        ``>=`` bound of a multi-type condition lets exactly one type fall one short, as the data
        README documents for Melchizedek, Astronomy, Ari-kat and Alchemy."""
        if all(c.holds(counts) for c in self.conds):
            return True
        if not lower_one:
            return False
        for i, c in enumerate(self.conds):
            if c.op == ">=" and all(d.holds(counts, lowered=(j == i)) for j, d in enumerate(self.conds)):
                return True
        return False

    def counts_used(self) -> tuple[str, ...]:
        seen: list[str] = []
        for c in self.conds:
            for name in c.expr.counts_used():
                if name not in seen:
                    seen.append(name)
        return tuple(seen)


# ---------------------------------------------------------------------------------------------
# Parser

_TOKEN = re.compile(r"\s*(?:(?P<int>\d+)|(?P<name>[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_]+)?)"
                    r"|(?P<op>>=|<=|[()+*,;:&])|(?P<bad>\S))")


@dataclass(frozen=True)
class _Tok:
    kind: str   # int | name | op | end
    text: str
    col: int    # 1-based column of the token's first character
    end: int    # 0-based index just past the token


def _tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # only trailing whitespace is left
            break
        kind = present(m.lastgroup, "the token's kind")     # every alternative of _TOKEN is a named group
        start = m.start(kind)
        if kind == "bad":
            raise FormulaError(f"unexpected character {m.group(kind)!r}", start + 1)
        toks.append(_Tok(kind, m.group(kind), start + 1, m.end()))
        pos = m.end()
    toks.append(_Tok("end", "", len(text.rstrip()) + 1, len(text)))
    return toks


def _show(tok: _Tok) -> str:
    return "the end of the text" if tok.kind == "end" else repr(tok.text)


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0

    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def at(self, op: str) -> bool:
        return self.tok.kind == "op" and self.tok.text == op

    def expect(self, op: str) -> _Tok:
        if not self.at(op):
            raise FormulaError(f"expected {op!r}, found {_show(self.tok)}", self.tok.col)
        return self.take()

    def integer(self, what: str) -> int:
        if self.tok.kind != "int":
            raise FormulaError(f"expected {what} (a whole number), found {_show(self.tok)}", self.tok.col)
        return int(self.take().text)

    def items(self, item: Callable[[], Node], sep: str) -> tuple[Node, ...]:
        """``item (sep item)*``: one or more items and the separators between them."""
        items = [item()]
        while self.at(sep):
            self.take()
            items.append(item())
        return tuple(items)

    def expr(self) -> Node:
        items = self.items(self.term, "+")
        return items[0] if len(items) == 1 else Sum(items)

    def term(self) -> Node:
        items = self.items(self.factor, "*")
        return items[0] if len(items) == 1 else Product(items)

    def factor(self) -> Node:
        tok = self.tok
        if tok.kind == "int":
            return Num(int(self.take().text))
        if self.at("("):
            self.take()
            node = self.expr()
            self.expect(")")
            return node
        if tok.kind == "name":
            if tok.text in ("min", "max", "step"):
                self.take()
                self.expect("(")
                if tok.text == "step":
                    return self.step_rest()
                items = self.items(self.expr, ",")
                self.expect(")")
                return (Min if tok.text == "min" else Max)(items)
            if tok.text not in COUNTS:
                raise FormulaError(f"unknown count {tok.text!r}; known: {', '.join(COUNTS)}", tok.col)
            return Count(self.take().text)
        raise FormulaError(f"expected a number, a count, '(', min, max or step, found {_show(tok)}", tok.col)

    def step_rest(self) -> Node:
        x = self.expr()
        self.expect(";")
        steps: list[tuple[int, int]] = []
        while True:
            col = self.tok.col
            threshold = self.integer("a threshold")
            if steps and threshold <= steps[-1][0]:
                raise FormulaError(f"step thresholds must be strictly ascending ({threshold} after "
                                   f"{steps[-1][0]})", col)
            self.expect(":")
            steps.append((threshold, self.integer("a value")))
            if not self.at(","):
                break
            self.take()
        self.expect(")")
        return Step(x, tuple(steps))

    def done(self) -> None:
        if self.tok.kind != "end":
            raise FormulaError(f"unexpected {_show(self.tok)} after a complete expression", self.tok.col)


def parse_formula(text: str) -> Formula:
    """An end-game formula; FormulaError names the column and what was expected."""
    if not text.strip():
        raise FormulaError("empty formula", 1)
    p = _Parser(text)
    root = p.expr()
    p.done()
    return Formula(text.strip(), root)


def parse_requirement(text: str) -> Requirement:
    """A technology requirement (empty text = no requirement)."""
    if not text.strip():
        return Requirement("", ())
    p = _Parser(text)
    conds: list[Cond] = []
    while True:
        start = p.tok.col - 1
        expr = p.expr()
        if not (p.at(">=") or p.at("<=")):
            raise FormulaError(f"expected '>=' or '<=', found {_show(p.tok)}", p.tok.col)
        op = p.take().text
        bound = p.integer("a bound")
        conds.append(Cond(text[start:p.toks[p.i - 1].end].strip(), expr, op, bound))
        if p.at("&"):
            p.take()
            continue
        p.done()
        return Requirement(text.strip(), tuple(conds))
