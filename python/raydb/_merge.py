"""Splitting a star query into per-partition partial aggregates and merging them on the client.

A query of the SQL engine's class (one SELECT: grouping columns and SUM/COUNT/MIN/MAX/AVG items,
FROM ... WHERE ..., GROUP BY, ORDER BY, LIMIT) is rewritten for the workers: every grouping item
becomes ``_g<i>``, every aggregate one or two partials ``_p<k>`` (AVG as a SUM and a COUNT), and
ORDER BY and LIMIT are dropped. The client sums the sums and counts, takes the min of the mins and
the max of the maxes per group, divides AVG's sum by its count, then orders and limits. Exact for
integers and decimals (64-bit sums, as one engine computes them); AVG is a float64 division.
"""

import re

import numpy as np

import raydb

_AGG = re.compile(r"^(sum|count|min|max|avg)\s*\((.*)\)$", re.I | re.S)
_ALIAS = re.compile(r"^(.*?)\s+as\s+([A-Za-z_][A-Za-z0-9_]*)$", re.I | re.S)
_CLAUSES = ("select", "from", "group by", "having", "order by", "limit")


class QueryUnsupported(raydb.Unsupported):
    """A query the distributed merge cannot split (HAVING, an aggregate inside an expression)."""


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
    return out


def _norm(expr):
    return " ".join(expr.lower().split())


class SplitQuery:
    """One query split for partial aggregation: ``partial_sql`` runs on each partition and
    ``merge`` combines the partitions' {column: array} results."""

    def __init__(self, sql):
        sql = sql.strip().rstrip(";").strip()
        c = _clauses(sql)
        if "having" in c:
            raise QueryUnsupported("distributed query: HAVING is not supported (a group's "
                                   "aggregate is known only after the merge); filter the result")
        self.items = []  # (kind, function or None, expression, output name)
        partial, k = [], 0
        for i, item in enumerate(_split_commas(c["select"])):
            m = _ALIAS.match(item)
            expr, name = (m.group(1).strip(), m.group(2)) if m else (item, item)
            a = _AGG.match(expr)
            if a:
                fn, arg = a.group(1).lower(), a.group(2).strip()
                if fn == "avg":
                    partial += [f"sum({arg}) AS _p{k}", f"count(*) AS _p{k + 1}"]
                    self.items.append(("agg", fn, (f"_p{k}", f"_p{k + 1}"), name))
                    k += 2
                else:
                    partial.append(f"{fn}({arg}) AS _p{k}")
                    self.items.append(("agg", fn, (f"_p{k}",), name))
                    k += 1
            elif re.search(r"\b(sum|count|min|max|avg)\s*\(", expr, re.I):
                raise QueryUnsupported(f"distributed query: select item {i + 1} ({item}) puts an "
                                       "aggregate inside an expression; select the aggregate alone")
            else:
                partial.append(f"{expr} AS _g{i}")
                self.items.append(("group", None, (f"_g{i}",), name))
        self.partial_columns = [c for it in self.items for c in it[2]]
        self.groups = [it[2][0] for it in self.items if it[0] == "group"]
        tail = f" GROUP BY {c['group by']}" if "group by" in c else ""
        self.partial_sql = f"SELECT {', '.join(partial)} FROM {c['from']}{tail}"
        self.names = [it[3] for it in self.items]
        self.order = self._order(c.get("order by"), sql)
        self.limit = None
        if "limit" in c:
            if not c["limit"].isdigit():
                raise QueryUnsupported(f"distributed query: LIMIT {c['limit']} is not a number")
            self.limit = int(c["limit"])

    def _order(self, text, sql):
        if not text:
            return []
        keys = []
        exprs = [_norm(it[3]) for it in self.items]
        for part in _split_commas(text):
            m = re.match(r"^(.*?)(?:\s+(asc|desc))?$", part, re.I | re.S)
            key, desc = m.group(1).strip(), (m.group(2) or "").lower() == "desc"
            if key.isdigit() and 1 <= int(key) <= len(self.items):
                keys.append((int(key) - 1, desc))
            elif _norm(key) in exprs:
                keys.append((exprs.index(_norm(key)), desc))
            else:
                raise QueryUnsupported(f"distributed query: ORDER BY {key} is not an output "
                                       f"column (name, select text or position) of: {sql}")
        return keys

    def merge(self, parts):
        """{output name: numpy array} from the partitions' {column: array} results."""
        import pandas as pd

        frames = [pd.DataFrame(p) for p in parts if len(next(iter(p.values()), [])) > 0]
        if not frames:
            return {n: np.array([]) for n in self.names}
        df = pd.concat(frames, ignore_index=True)
        how = {}
        for kind, fn, cols, _ in self.items:
            if kind == "agg":
                for col in cols:
                    how[col] = {"min": "min", "max": "max"}.get(fn, "sum")
        if self.groups:
            merged = df.groupby(self.groups, sort=False, dropna=False).agg(how).reset_index()
        else:
            merged = pd.DataFrame({c: [getattr(df[c], f)()] for c, f in how.items()})
        out = {}
        for kind, fn, cols, name in self.items:
            if kind == "agg" and fn == "avg":
                out[name] = merged[cols[0]].to_numpy(np.float64) / merged[cols[1]].to_numpy()
            else:
                out[name] = merged[cols[0]].to_numpy()
        result = pd.DataFrame({i: v for i, v in enumerate(out.values())})
        if self.order:
            result = result.sort_values([k for k, _ in self.order],
                                        ascending=[not d for _, d in self.order], kind="mergesort")
        if self.limit is not None:
            result = result.head(self.limit)
        return {name: result[i].to_numpy() for i, name in enumerate(self.names)}
