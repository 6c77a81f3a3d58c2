"""SQL expressions over merged groups, for the clauses a distributed query applies only after the
merge (HAVING, ORDER BY on an expression). A group's aggregate is known only once every
partition's partial is merged, so these cannot run on the workers.

The grammar is a subset of SQLite's: numbers, 'strings', NULL, aggregate calls, references to
output columns, + - * / %, comparisons, [NOT] BETWEEN, [NOT] IN (...), IS [NOT] NULL, AND, OR,
NOT and parentheses. NULL follows SQL's three-valued logic and integer / and % truncate toward
zero (NULL on a zero divisor) as in SQLite. Anything else raises QueryUnsupported naming it, so
a clause is evaluated exactly or refused, never approximated.
"""

import re

import numpy as np

_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<str>'(?:[^']|'')*')"
    r"|(?P<id>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|\"[^\"]+\")"
    r"|(?P<op><=|>=|<>|!=|==|[=<>+\-*/%(),]))")
_AGGS = ("sum", "count", "min", "max", "avg")
_KEYWORDS = ("and", "or", "not", "between", "in", "is", "null")


class Value:
    """An expression's value per group: ``v`` (a numpy array) and ``null`` (a bool array)."""

    def __init__(self, v, null):
        self.v, self.null = v, null

    @property
    def is_text(self):
        """True for strings (compared as SQLite's BINARY collation; no arithmetic)."""
        return self.v.dtype.kind in "OUS"


def _tokens(text, unsupported):
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise unsupported(f"'{text[pos:].strip()[:20]}' in: {text}")
        kind = m.lastgroup
        out.append((kind, m.group(kind), m.start(kind), m.end(kind)))
        pos = m.end()
    return out


class Evaluator:
    """Evaluates one expression text over n merged groups.

    agg(fn, arg) returns the merged aggregate fn(arg) as a Value; ref(text) returns the output
    column the text names (alias or select text) as a Value, or None; unsupported(what) makes the
    exception that refuses a construct.
    """

    def __init__(self, n, agg, ref, unsupported):
        self.n, self.agg, self.ref, self.unsupported = n, agg, ref, unsupported

    def evaluate(self, text, condition=False):
        """The expression's Value (as SQL truth, bool, when `condition`); the exception of
        `unsupported` outside the grammar."""
        self.text, self.toks, self.i = text, _tokens(text, self.unsupported), 0
        value = self._or()
        if self.i != len(self.toks):
            raise self.unsupported(f"'{self.toks[self.i][1]}' in: {text}")
        return _truth(value, self) if condition else value

    # -- tokens
    def _peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else (None, None, len(self.text), len(self.text))

    def _word(self, k=0):
        kind, text, _, _ = self._peek(k)
        return text.lower() if kind in ("id", "op") else None

    def _take(self, word):
        if self._word() == word:
            self.i += 1
            return True
        return False

    def _expect(self, word):
        if not self._take(word):
            raise self.unsupported(f"expected {word.upper()} at '{self._peek()[1]}' "
                                   f"in: {self.text}")

    # -- grammar, loosest first
    def _or(self):
        left = self._and()
        while self._take("or"):
            right = self._and()
            lt, rt = _truth(left, self), _truth(right, self)
            true = (lt.v & ~lt.null) | (rt.v & ~rt.null)
            left = Value(true, ~true & (lt.null | rt.null))
        return left

    def _and(self):
        left = self._not()
        while self._take("and"):
            right = self._not()
            lt, rt = _truth(left, self), _truth(right, self)
            false = (~lt.v & ~lt.null) | (~rt.v & ~rt.null)
            left = Value(~false & ~(lt.null | rt.null), ~false & (lt.null | rt.null))
        return left

    def _not(self):
        if self._take("not"):
            t = _truth(self._not(), self)
            return Value(~t.v & ~t.null, t.null)
        return self._compare()

    def _compare(self):
        left = self._add()
        negate = self._word() == "not" and self._word(1) in ("between", "in")
        if negate:
            self.i += 1
        if self._take("between"):
            low = self._add()
            self._expect("and")
            high = self._add()
            lo, hi = _cmp(left, low, ">=", self), _cmp(left, high, "<=", self)
            false = (~lo.v & ~lo.null) | (~hi.v & ~hi.null)
            out = Value(~false & ~(lo.null | hi.null), ~false & (lo.null | hi.null))
            return Value(~out.v & ~out.null, out.null) if negate else out
        if self._take("in"):
            self._expect("(")
            items = [self._add()]
            while self._take(","):
                items.append(self._add())
            self._expect(")")
            hit, null = np.zeros(self.n, bool), np.zeros(self.n, bool)
            for item in items:
                eq = _cmp(left, item, "=", self)
                hit |= eq.v & ~eq.null
                null |= eq.null
            out = Value(hit, ~hit & null)
            return Value(~out.v & ~out.null, out.null) if negate else out
        if self._take("is"):
            negate = self._take("not")
            self._expect("null")
            return Value(~left.null if negate else left.null.copy(), np.zeros(self.n, bool))
        op = self._word()
        if op in ("=", "==", "<>", "!=", "<", "<=", ">", ">="):
            self.i += 1
            return _cmp(left, self._add(), op, self)
        return left

    def _add(self):
        left = self._mul()
        while self._word() in ("+", "-"):
            op = self._word()
            self.i += 1
            left = _arith(left, self._mul(), op, self)
        return left

    def _mul(self):
        left = self._unary()
        while self._word() in ("*", "/", "%"):
            op = self._word()
            self.i += 1
            left = _arith(left, self._unary(), op, self)
        return left

    def _unary(self):
        if self._take("-"):
            v = self._unary()
            if v.is_text and self.n:
                raise self.unsupported(f"minus on text in: {self.text}")
            return Value(-v.v, v.null)
        if self._take("+"):
            return self._unary()
        return self._primary()

    def _primary(self):
        kind, text, start, _ = self._peek()
        full = np.zeros(self.n, bool)
        if kind == "num":
            self.i += 1
            number = float(text) if re.search(r"[.eE]", text) else int(text)
            return Value(np.full(self.n, number), full)
        if kind == "str":
            self.i += 1
            return Value(np.full(self.n, text[1:-1].replace("''", "'"), dtype=object), full)
        if self._take("("):
            value = self._or()
            self._expect(")")
            return value
        if kind == "id" and text.lower() == "null":
            self.i += 1
            return Value(np.zeros(self.n), ~full)
        if kind == "id" and text.lower() in _AGGS and self._word(1) == "(":
            self.i += 2
            depth, begin = 1, self._peek()[2]
            while depth:
                k, t, s, _ = self._peek()
                if k is None:
                    raise self.unsupported(f"unbalanced parentheses in: {self.text}")
                depth += {"(": 1, ")": -1}.get(t, 0)
                self.i += 1
            return self.agg(text.lower(), self.text[begin:s].strip())
        if kind == "id" and text.lower() not in _KEYWORDS:
            # the longest run of tokens naming an output column (a name or a select expression)
            for stop in range(len(self.toks), self.i, -1):
                ref = self.ref(self.text[start:self.toks[stop - 1][3]])
                if ref is not None:
                    self.i = stop
                    return ref
            raise self.unsupported(f"{text} is not an output column or an aggregate in: "
                                   f"{self.text}")
        raise self.unsupported(f"'{text}' in: {self.text}" if text else f"end of: {self.text}")


def _truth(value, ev):
    """A Value as SQL truth (numbers: non-zero is true)."""
    if value.v.dtype == bool:
        return value
    if value.is_text and ev.n:
        raise ev.unsupported(f"text used as a condition in: {ev.text}")
    return Value(np.where(value.null, False, value.v != 0), value.null)


def _cmp(a, b, op, ev):
    if a.is_text != b.is_text and ev.n:  # (no rows: parsed before the types are known)
        raise ev.unsupported(f"a comparison of text with a number in: {ev.text}")
    null = a.null | b.null
    av, bv = a.v, b.v
    if a.is_text:  # SQLite's BINARY collation: compare the strings as they are
        av, bv = av.astype(str), bv.astype(str)
    r = {"=": av == bv, "==": av == bv, "<>": av != bv, "!=": av != bv, "<": av < bv,
         "<=": av <= bv, ">": av > bv, ">=": av >= bv}[op]
    return Value(np.where(null, False, r), null)


def _arith(a, b, op, ev):
    if (a.is_text or b.is_text) and ev.n:
        raise ev.unsupported(f"arithmetic on text in: {ev.text}")
    if a.is_text or b.is_text:
        return Value(np.zeros(0, np.int64), np.zeros(0, bool))
    null = a.null | b.null
    ints = a.v.dtype.kind in "iub" and b.v.dtype.kind in "iub"
    av, bv = (a.v.astype(np.int64), b.v.astype(np.int64)) if ints else (a.v, b.v)
    if op in "+-*":
        return Value({"+": av + bv, "-": av - bv, "*": av * bv}[op], null)
    if op == "%" and not ints:
        raise ev.unsupported(f"% on a non-integer in: {ev.text}")
    zero = bv == 0
    null = null | zero
    safe = np.where(zero, 1, bv)
    if ints:  # SQLite truncates toward zero
        q = np.abs(av) // np.abs(safe) * np.sign(av) * np.sign(safe)
        return Value(q if op == "/" else av - q * safe, null)
    return Value(av / safe, null)
