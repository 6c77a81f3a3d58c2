"""Splitting a star query into per-partition partial aggregates and merging them on the client.

A query of the SQL engine's class (one SELECT: grouping columns and SUM/COUNT/MIN/MAX/AVG items,
FROM ... WHERE ..., GROUP BY, HAVING, ORDER BY, LIMIT [OFFSET]) is rewritten for the workers:
every grouping item becomes ``_g<i>``, every aggregate one or two partials ``_p<k>`` (AVG as a SUM
and a COUNT; aggregates only HAVING or ORDER BY name are added as hidden partials), and HAVING,
ORDER BY and LIMIT are dropped. The client sums the sums and counts, takes the min of the mins and
the max of the maxes per group, divides AVG's sum by its count, then filters by HAVING, orders and
limits (raydb._expr evaluates the expressions). Exact for integers and decimals (64-bit sums, as
one engine computes them); AVG is a float64 division. A query without aggregates or GROUP BY is
the parts' rows concatenated. What cannot be merged exactly (DISTINCT, an aggregate inside a
select expression, a construct outside raydb._expr's grammar) is refused, naming it.
"""

import re

import numpy as np

import raydb

from . import _expr

_AGG = re.compile(r"^(sum|count|min|max|avg)\s*\((.*)\)$", re.I | re.S)
_ALIAS = re.compile(r"^(.*?)\s+as\s+([A-Za-z_][A-Za-z0-9_]*)$", re.I | re.S)
_CLAUSES = ("select", "from", "group by", "having", "order by", "limit")


class QueryUnsupported(raydb.Unsupported):
    """A query the distributed merge cannot split exactly; the message names the construct."""


def _top_level(sql):
    """Yields (position, character) outside quotes and parentheses."""
    depth, quote = 0, None
    for i, ch in enumerate(sql):
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            yield i, ch


def _split_commas(text):
    cuts = [i for i, ch in _top_level(text) if ch == ","]
    parts, start = [], 0
    for c in cuts + [len(text)]:
        parts.append(text[start:c].strip())
        start = c + 1
    return [p for p in parts if p]


def _clauses(sql):
    """{clause: text} for the top-level clauses of one SELECT."""
    top = {i for i, _ in _top_level(sql)}
    found = []
    for m in re.finditer(r"\b(select|from|group\s+by|having|order\s+by|limit)\b", sql, re.I):
        if m.start() in top:
            found.append((m.start(), m.end(), " ".join(m.group(1).lower().split())))
    out = {}
    for k, (start, end, name) in enumerate(found):
        stop = found[k + 1][0] if k + 1 < len(found) else len(sql)
        if name in out:
            raise QueryUnsupported(f"distributed query: more than one {name.upper()} at top level "
                                   "(subqueries and unions are outside the class)")
        out[name] = sql[end:stop].strip()
    if "select" not in out or "from" not in out:
        raise raydb.InvalidArgument("distributed query: expected SELECT ... FROM ...")
    if found[0][0] != 0 or found[0][2] != "select":
        head = sql[:found[0][0]].split() or [found[0][2]]
        raise QueryUnsupported(f"distributed query: {head[0].upper()} before SELECT is not "
                               "supported (one plain SELECT)")
    return out


def _norm(expr):
    return " ".join(expr.lower().split())


class SplitQuery:
    """One query split for partial aggregation: ``partial_sql`` runs on each partition and
    ``merge`` combines the partitions' {column: array} results.

    HAVING, ORDER BY and LIMIT/OFFSET apply to the merged groups (raydb._expr), never per
    partition; aggregates that HAVING or ORDER BY name but the select list does not are computed
    as hidden partials. What cannot be merged exactly is refused with QueryUnsupported.
    """

    def __init__(self, sql):
        self.sql = sql = sql.strip().rstrip(";").strip()
        c = _clauses(sql)
        if re.match(r"(distinct|all)\b", c["select"], re.I):
            raise QueryUnsupported("distributed query: SELECT DISTINCT/ALL is not supported; "
                                   "GROUP BY the columns instead")
        self.items = []  # (kind, function or None, partial columns, output name or None)
        self._partial, self._aggs = [], {}  # partial select items; (fn, arg) -> item index
        texts = []  # each select item's expression, normalised
        for i, item in enumerate(_split_commas(c["select"])):
            m = _ALIAS.match(item)
            expr, name = (m.group(1).strip(), m.group(2)) if m else (item, item)
            a = _AGG.match(expr)
            if a and _balanced(a.group(2)):
                self._aggregate(a.group(1).lower(), a.group(2).strip(), name)
            elif re.search(r"\b(sum|count|min|max|avg)\s*\(", expr, re.I):
                raise QueryUnsupported(f"distributed query: select item {i + 1} ({item}) puts an "
                                       "aggregate inside an expression; select the aggregate alone")
            else:
                self._partial.append(f"{expr} AS _g{i}")
                self.items.append(("group", None, (f"_g{i}",), name))
            texts.append(_norm(expr))
        self.groups = [it[2][0] for it in self.items if it[0] == "group"]
        self.has_aggregates = any(it[0] == "agg" for it in self.items)
        if self.has_aggregates and self.groups and "group by" not in c:
            raise QueryUnsupported("distributed query: a column beside aggregates without GROUP "
                                   "BY (SQLite would pick one row's value)")
        if not self.has_aggregates and "group by" not in c:
            # rows, not groups: the parts' rows are concatenated (then ordered and limited)
            self.groups = None
        self.names = [it[3] for it in self.items]
        self._exprs = [_norm(it[3]) for it in self.items]
        self._texts = texts
        # HAVING and ORDER BY are parsed now, so a query outside the grammar is refused before
        # any partition runs; parsing them records the hidden aggregates they need.
        self.having = c.get("having")
        if self.having and self.groups is None:
            raise QueryUnsupported("distributed query: HAVING without GROUP BY or an aggregate")
        if self.having:
            self._evaluate(self.having, self._probe(), condition=True)
        self.order = self._order(c.get("order by"))
        self.limit, self.offset = _limit(c.get("limit"))
        self.partial_columns = [col for it in self.items for col in it[2]]
        tail = f" GROUP BY {c['group by']}" if "group by" in c else ""
        self.partial_sql = f"SELECT {', '.join(self._partial)} FROM {c['from']}{tail}"

    def _aggregate(self, fn, arg, name):
        """Adds (or finds) the partials of fn(arg); returns its item index."""
        if re.match(r"distinct\b", arg, re.I):
            raise QueryUnsupported(f"distributed query: {fn.upper()}(DISTINCT ...) cannot be "
                                   "merged from partitions")
        key = (fn, _norm(arg))
        if key in self._aggs and name is None:
            return self._aggs[key]
        k = len(self._partial)
        if fn == "avg":
            self._partial += [f"sum({arg}) AS _p{k}", f"count(*) AS _p{k + 1}"]
            cols = (f"_p{k}", f"_p{k + 1}")
        else:
            self._partial.append(f"{fn}({arg}) AS _p{k}")
            cols = (f"_p{k}",)
        self.items.append(("agg", fn, cols, name))
        self._aggs.setdefault(key, len(self.items) - 1)
        return len(self.items) - 1

    def _probe(self):
        """Zero-row merged columns: lets __init__ parse HAVING/ORDER BY before anything runs."""
        return [np.zeros(0, np.int64) for _ in self.items]

    def _evaluate(self, text, columns, condition=False):
        """A HAVING (condition) or ORDER BY expression over the merged columns (one array per
        item): an _expr.Value."""
        n = len(columns[0]) if columns else 0

        def value(i):
            col = columns[i] if i < len(columns) else np.zeros(n, np.int64)
            null = _isna(col)
            return _expr.Value(col, null)

        def agg(fn, arg):
            return value(self._aggregate(fn, arg, None))

        def ref(text):
            t = _norm(text)
            for known in (self._exprs, self._texts):
                if t in known:
                    return value(known.index(t))
            return None

        def unsupported(what):
            return QueryUnsupported(f"distributed query: {what}")

        return _expr.Evaluator(n, agg, ref, unsupported).evaluate(text, condition)

    def _order(self, text):
        if not text:
            return []
        keys = []
        for part in _split_commas(text):
            m = re.match(r"^(.*?)(?:\s+(asc|desc))?(?:\s+nulls\s+(first|last))?$", part,
                         re.I | re.S)
            key, desc = m.group(1).strip(), (m.group(2) or "").lower() == "desc"
            if m.group(3):
                raise QueryUnsupported(f"distributed query: NULLS {m.group(3).upper()} in ORDER "
                                       "BY is not supported")
            if key.isdigit():
                if not 1 <= int(key) <= len(self.names):
                    raise QueryUnsupported(f"distributed query: ORDER BY {key} is not a select "
                                           f"item's position (1 to {len(self.names)})")
                keys.append((int(key) - 1, desc))
            elif _norm(key) in self._exprs:
                keys.append((self._exprs.index(_norm(key)), desc))
            elif self.groups is not None:
                try:  # an expression over aggregates and output columns
                    self._evaluate(key, self._probe())
                except QueryUnsupported as e:
                    raise QueryUnsupported(f"distributed query: ORDER BY {key} is not an output "
                                           f"column or an expression over aggregates and output "
                                           f"columns ({e}) in: {self.sql}") from None
                keys.append((key, desc))
            else:
                raise QueryUnsupported(f"distributed query: ORDER BY {key} is not an output "
                                       f"column (name, select text or position) of: {self.sql}")
        return keys

    def merge(self, parts):
        """{output name: numpy array} from the partitions' {column: array} results."""
        import pandas as pd

        frames = [pd.DataFrame(p) for p in parts if len(next(iter(p.values()), [])) > 0]
        if frames:
            df = pd.concat(frames, ignore_index=True)
        elif self.groups == []:  # aggregates over no row: one row, COUNT 0 and the others NULL
            df = pd.DataFrame({c: np.zeros(0) for it in self.items for c in it[2]})
        else:
            return {n: np.array([]) for n in self.names}
        if self.groups is None:
            merged = df
        elif self.groups:
            grouped = df.groupby(self.groups, sort=False, dropna=False)
            merged = grouped.size().reset_index()[self.groups]
            for kind, fn, cols, _ in self.items:
                for col in cols if kind == "agg" else ():
                    g = grouped[col]
                    # min_count: a SUM over no non-NULL value is NULL, as in SQL
                    merged[col] = (g.min() if fn == "min" else g.max() if fn == "max" else
                                   g.sum(min_count=1 if fn == "sum" else 0)).to_numpy()
        else:
            merged = pd.DataFrame({col: [df[col].min() if fn == "min" else
                                         df[col].max() if fn == "max" else
                                         df[col].sum(min_count=1 if fn == "sum" else 0)]
                                   for kind, fn, cols, _ in self.items for col in cols})
        columns = []
        for kind, fn, cols, _ in self.items:
            if kind == "agg" and fn == "avg":
                with np.errstate(invalid="ignore", divide="ignore"):  # no row: NULL (NaN)
                    columns.append(merged[cols[0]].to_numpy(np.float64) /
                                   merged[cols[1]].to_numpy())
            else:
                columns.append(merged[cols[0]].to_numpy())
        keep = np.arange(len(merged))
        if self.having:
            h = self._evaluate(self.having, columns, condition=True)
            keep = np.flatnonzero(h.v & ~h.null)
            columns = [col[keep] for col in columns]
        if self.order:
            keys = []
            for key, desc in self.order:
                if isinstance(key, int):
                    value = _expr.Value(columns[key], _isna(columns[key]))
                else:
                    value = self._evaluate(key, columns)
                keys.append(_sort_key(value, desc))
            rows = np.lexsort(keys[::-1]) if keys else np.arange(len(keep))
            columns = [col[rows] for col in columns]
        stop = None if self.limit is None else self.offset + self.limit
        return {name: col[self.offset:stop]
                for (_, _, _, name), col in zip(self.items, columns) if name is not None}


def _isna(col):
    """NULL cells of a merged column (None or NaN)."""
    import pandas as pd

    return np.asarray(pd.isna(col), dtype=bool)


def _sort_key(value, desc):
    """An integer key that lexsort orders as SQLite's ORDER BY (NULLs first ascending, last
    descending); ties keep the merge's order."""
    col, null = value.v, value.null
    rank = np.zeros(len(col), np.int64)
    if (~null).any():
        values = col[~null]
        if values.dtype == object:
            values = values.astype(str)
        _, inverse = np.unique(values, return_inverse=True)
        rank[~null] = inverse + 1
    return -rank if desc else rank


def _balanced(text):
    """True when text's parentheses pair up: sum(a) + max(b) is not one call of sum."""
    depth, quote = 0, None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        else:
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth < 0:
                return False
    return depth == 0


def _limit(text):
    """(limit, offset) from LIMIT's text: n, n OFFSET m or m, n."""
    if text is None:
        return None, 0
    m = re.fullmatch(r"(\d+)(?:\s+offset\s+(\d+)|\s*,\s*(\d+))?", text.strip(), re.I)
    if not m:
        raise QueryUnsupported(f"distributed query: LIMIT {text} is not a number "
                               "(n, n OFFSET m or m, n)")
    if m.group(3) is not None:
        return int(m.group(3)), int(m.group(1))
    return int(m.group(1)), int(m.group(2) or 0)
