// Binds a parsed SELECT to the catalog (names, types, the star's joins) and refuses what is
// outside the query class, naming the construct and where it is.
#include "sql/bind.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace raydb::sql::detail {

const Column& column_of(const Catalog& cat, const BoundQuery& q, AttrRef a) {
  int t = a.dim < 0 ? q.fact : q.dims[size_t(a.dim)].table;
  return cat.tables[size_t(t)].columns[size_t(a.column)];
}

std::string attr_name(const Catalog& cat, const BoundQuery& q, AttrRef a) {
  return column_of(cat, q, a).name;
}

namespace {

struct From {
  int table;
  std::string alias;
  int64_t location;
};

class Binder {
 public:
  Binder(const Catalog& cat, const Parsed& p) : cat_(cat), p_(p) {}
  BoundQuery bind(const Json& stmt);

 private:
  const Catalog& cat_;
  const Parsed& p_;
  BoundQuery q_;
  std::vector<From> from_;
  std::vector<int> dim_of_from_;  // from_ index -> dim index (-1: fact)

  // A construct outside the query class.
  [[noreturn]] void fail(const std::string& what, const Json& node) {
    unsupported(p_, what, location_of(node));
  }
  // A query in the class that is wrong (names, types).
  [[noreturn]] void error(const std::string& msg, const Json& node) {
    throw Error(Errc::invalid_argument, msg + where(p_, location_of(node)));
  }
  static std::string sval(const Json& s) { return s.at("String").value("sval", ""); }

  // (from index, column) of a ColumnRef.
  std::pair<int, int> resolve(const Json& ref) {
    const Json& f = ref.at("fields");
    if (f.size() == 1 && f[0].contains("A_Star")) fail("* in this position", ref);
    if (f.size() > 2) fail("a column name with more than two parts", ref);
    std::string col = sval(f.back());
    std::string qual = f.size() == 2 ? sval(f[0]) : "";
    int found = -1, fc = -1;
    for (size_t i = 0; i < from_.size(); ++i) {
      if (!qual.empty() && from_[i].alias != qual) continue;
      int c = cat_.tables[size_t(from_[i].table)].find(col);
      if (c < 0) continue;
      if (found >= 0) error(fmt::format("column {} is ambiguous", col), ref);
      found = static_cast<int>(i), fc = c;
    }
    if (found < 0) {
      if (!qual.empty() &&
          std::none_of(from_.begin(), from_.end(), [&](const From& x) { return x.alias == qual; }))
        error(fmt::format("unknown table {}", qual), ref);
      error(fmt::format("unknown column {}", qual.empty() ? col : qual + "." + col), ref);
    }
    return {found, fc};
  }

  Literal literal(const Json& node, const Column* target) {
    std::string kind = node_kind(node);
    if (kind == "TypeCast") {
      const Json& tc = node.at("TypeCast");
      std::string tn = sval(tc.at("typeName").at("names").back());
      if (tn != "date") fail(fmt::format("a cast to {}", tn), node);
      Literal l = literal(tc.at("arg"), nullptr);
      if (!l.is_text) error("DATE needs a 'YYYY-MM-DD' string", node);
      try {
        l.mantissa = parse_date(l.text);
      } catch (const Error& e) {
        error(e.what(), node);
      }
      l.is_text = false;
      return convert(l, target, node);
    }
    if (kind != "A_Const") fail(fmt::format("{} where a constant is expected", kind), node);
    const Json& c = node.at("A_Const");
    Literal l;
    if (c.contains("isnull")) fail("NULL", node);
    if (c.contains("sval")) {
      l.is_text = true;
      l.text = c.at("sval").value("sval", "");
    } else if (c.contains("ival")) {
      l.mantissa = c.at("ival").value("ival", int64_t{0});
    } else if (c.contains("fval")) {
      std::string s = c.at("fval").value("fval", "");
      size_t dot = s.find('.');
      int sc = dot == s.npos ? 0 : static_cast<int>(s.size() - dot - 1);
      if (sc > 9 || s.find_first_of("eE") != s.npos)
        fail(fmt::format("the number {} (more than 9 decimals or an exponent)", s), node);
      try {
        l.mantissa = parse_decimal(s, sc);
      } catch (const Error&) {
        error(fmt::format("the number {} (out of 64-bit range)", s), node);
      }
      l.scale = sc;
    } else {
      fail("this constant", node);
    }
    return convert(l, target, node);
  }

  // The literal in the target column's domain: dates from text; text only for text.
  Literal convert(Literal l, const Column* target, const Json& node) {
    if (!target) return l;
    if (target->type == ColType::text && !l.is_text)
      error(fmt::format("type error: text column {} compared with a number", target->name), node);
    if (target->type == ColType::date && l.is_text) {
      try {
        l.mantissa = parse_date(l.text);
      } catch (const Error& e) {
        error(fmt::format("type error: date column {}: {}", target->name, e.what()), node);
      }
      l.is_text = false;
    } else if (target->type != ColType::text && l.is_text) {
      error(fmt::format("type error: {} column {} compared with text '{}'", type_name(target->type),
                        target->name, l.text),
            node);
    }
    return l;
  }

  // The attribute a predicate is on (every leaf must name the same one).
  Pred pred(const Json& node, AttrRef& attr, bool& have_attr);
  void where_conjunct(const Json& node);
  Expr expr(const Json& node);
  int aggregate(const Json& fc);
  HavingPred having(const Json& node);
  AttrRef attr_of(const Json& ref) {
    auto [fi, c] = resolve(ref.at("ColumnRef"));
    return AttrRef{dim_of_from_[size_t(fi)], c};
  }
};

std::string op_name(const Json& a) {
  return a.at("name").back().at("String").value("sval", "");
}

Pred Binder::pred(const Json& node, AttrRef& attr, bool& have) {
  std::string kind = node_kind(node);
  auto leaf_attr = [&](const Json& side) {
    if (node_kind(side) != "ColumnRef") fail("a predicate whose left side is not a column", side);
    AttrRef a = attr_of(side);
    if (have && !(a == attr)) fail("OR across different columns", node);
    attr = a, have = true;
  };
  Pred p;
  if (kind == "BoolExpr") {
    const Json& b = node.at("BoolExpr");
    std::string op = b.value("boolop", "");
    p.kind = op == "AND_EXPR"  ? Pred::Kind::all
             : op == "OR_EXPR" ? Pred::Kind::any
                               : Pred::Kind::negate;
    for (const Json& k : b.at("args")) p.kids.push_back(pred(k, attr, have));
    return p;
  }
  if (kind != "A_Expr") fail(fmt::format("{} in WHERE", kind.empty() ? "this" : kind), node);
  const Json& a = node.at("A_Expr");
  std::string ak = a.value("kind", "");
  // A prefix operator (unary + or -, ~) has no left operand.
  if (!a.contains("lexpr")) fail(fmt::format("a prefix operator {} in WHERE", op_name(a)), node);
  const Json& lhs = a.at("lexpr");
  if (node_kind(lhs) == "A_Const" && node_kind(a.at("rexpr")) == "ColumnRef")
    fail("a constant on the left of a comparison", node);
  leaf_attr(lhs);
  const Column& col = column_of(cat_, q_, attr);
  if (ak == "AEXPR_OP") {
    p.op = op_name(a);
    static const char* kOps[] = {"=", "<>", "<", "<=", ">", ">="};
    if (std::find(std::begin(kOps), std::end(kOps), p.op) == std::end(kOps))
      fail(fmt::format("operator {}", p.op), node);
    if (node_kind(a.at("rexpr")) == "ColumnRef")
      fail("a comparison of two columns other than a key join", node);
    p.lits.push_back(literal(a.at("rexpr"), &col));
  } else if (ak == "AEXPR_BETWEEN" || ak == "AEXPR_NOT_BETWEEN") {
    p.kind = Pred::Kind::between;
    for (const Json& x : a.at("rexpr").at("List").at("items")) p.lits.push_back(literal(x, &col));
    if (ak == "AEXPR_NOT_BETWEEN") {
      Pred n;
      n.kind = Pred::Kind::negate;
      n.kids.push_back(std::move(p));
      return n;
    }
  } else if (ak == "AEXPR_IN") {
    p.kind = Pred::Kind::in;
    if (node_kind(a.at("rexpr")) != "List") fail("IN with a subquery", a.at("rexpr"));
    for (const Json& x : a.at("rexpr").at("List").at("items")) p.lits.push_back(literal(x, &col));
    if (op_name(a) == "<>") {
      Pred n;
      n.kind = Pred::Kind::negate;
      n.kids.push_back(std::move(p));
      return n;
    }
  } else {
    fail(fmt::format("{} in WHERE", ak == "AEXPR_LIKE" ? "LIKE" : ak), node);
  }
  return p;
}

void Binder::where_conjunct(const Json& node) {
  std::string kind = node_kind(node);
  if (kind == "BoolExpr" && node.at("BoolExpr").value("boolop", "") == "AND_EXPR") {
    for (const Json& k : node.at("BoolExpr").at("args")) where_conjunct(k);
    return;
  }
  if (kind == "SubLink") error("subqueries are not supported", node);
  if (kind == "A_Expr" && node.at("A_Expr").value("kind", "") == "AEXPR_OP" &&
      node.at("A_Expr").contains("lexpr") && node.at("A_Expr").contains("rexpr") &&
      node_kind(node.at("A_Expr").at("lexpr")) == "ColumnRef" &&
      node_kind(node.at("A_Expr").at("rexpr")) == "ColumnRef")
    return;  // a join: handled in bind()
  AttrRef attr;
  bool have = false;
  Pred p = pred(node, attr, have);
  for (Filter& f : q_.filters)
    if (f.attr == attr) {
      Pred both;
      both.kind = Pred::Kind::all;
      both.kids.push_back(std::move(f.pred));
      both.kids.push_back(std::move(p));
      f.pred = std::move(both);
      return;
    }
  q_.filters.push_back({attr, std::move(p)});
}

Expr Binder::expr(const Json& node) {
  std::string kind = node_kind(node);
  Expr e;
  if (kind == "ColumnRef") {
    AttrRef a = attr_of(node);
    const Column& c = column_of(cat_, q_, a);
    if (a.dim >= 0)
      fail(fmt::format("an aggregate over dimension column {} (aggregates read fact columns)",
                       c.name),
           node);
    if (c.type != ColType::integer && c.type != ColType::decimal)
      error(fmt::format("type error: aggregate over {} column {}", type_name(c.type), c.name),
            node);
    e.op = 'c', e.column = a.column, e.scale = c.scale;
    return e;
  }
  if (kind == "A_Const") {
    Literal l = literal(node, nullptr);
    if (l.is_text) error("type error: text in an arithmetic expression", node);
    e.op = 'k', e.value = l.mantissa, e.scale = l.scale;
    return e;
  }
  if (kind == "A_Expr" && node.at("A_Expr").value("kind", "") == "AEXPR_OP") {
    std::string op = op_name(node.at("A_Expr"));
    if (op != "+" && op != "-" && op != "*") fail(fmt::format("operator {}", op), node);
    if (!node.at("A_Expr").contains("lexpr")) {  // unary minus: 0 - x
      Expr zero;
      zero.op = 'k';
      e.kids.push_back(zero);
    } else {
      e.kids.push_back(expr(node.at("A_Expr").at("lexpr")));
    }
    e.kids.push_back(expr(node.at("A_Expr").at("rexpr")));
    e.op = op[0];
    e.scale = e.op == '*' ? e.kids[0].scale + e.kids[1].scale
                          : std::max(e.kids[0].scale, e.kids[1].scale);
    if (e.scale > 9) fail("an expression of more than 9 decimal digits", node);
    return e;
  }
  if (kind == "FuncCall") fail("a nested aggregate or function", node);
  fail(fmt::format("{} in an aggregate", kind), node);
}

std::string expr_key(const Expr& e) {
  switch (e.op) {
    case 'c':
      return fmt::format("c{}", e.column);
    case 'k':
      return fmt::format("k{}e{}", e.value, e.scale);
    default:
      return fmt::format("({}{}{})", expr_key(e.kids[0]), e.op, expr_key(e.kids[1]));
  }
}

int Binder::aggregate(const Json& node) {
  const Json& fc = node.at("FuncCall");
  std::string name = fc.at("funcname").back().at("String").value("sval", "");
  if (fc.value("agg_distinct", false)) fail("DISTINCT in an aggregate", node);
  if (fc.contains("over")) fail("a window function", node);
  if (fc.contains("agg_filter")) fail("FILTER in an aggregate", node);
  Aggregate a;
  if (name == "sum")
    a.func = AggFunc::sum;
  else if (name == "count")
    a.func = AggFunc::count;
  else if (name == "min")
    a.func = AggFunc::min;
  else if (name == "max")
    a.func = AggFunc::max;
  else if (name == "avg")
    a.func = AggFunc::avg;
  else
    fail(fmt::format("function {}", name), node);
  if (fc.value("agg_star", false)) {
    if (a.func != AggFunc::count) fail(fmt::format("{}(*)", name), node);
    a.star = true;
    a.key = "count(*)";
  } else {
    if (!fc.contains("args") || fc.at("args").size() != 1)
      fail(fmt::format("{} with other than one argument", name), node);
    a.expr = expr(fc.at("args")[0]);
    a.key = name + "(" + expr_key(a.expr) + ")";
    if (a.func == AggFunc::count) a.key = "count(*)";  // no NULLs: COUNT(x) = COUNT(*)
  }
  for (size_t i = 0; i < q_.aggs.size(); ++i)
    if (q_.aggs[i].key == a.key) return static_cast<int>(i);
  q_.aggs.push_back(std::move(a));
  return static_cast<int>(q_.aggs.size() - 1);
}

HavingPred Binder::having(const Json& node) {
  std::string kind = node_kind(node);
  HavingPred h;
  if (kind == "BoolExpr") {
    std::string op = node.at("BoolExpr").value("boolop", "");
    h.kind = op == "AND_EXPR"  ? HavingPred::Kind::all
             : op == "OR_EXPR" ? HavingPred::Kind::any
                               : HavingPred::Kind::negate;
    for (const Json& k : node.at("BoolExpr").at("args")) h.kids.push_back(having(k));
    return h;
  }
  if (kind != "A_Expr" || node.at("A_Expr").value("kind", "") != "AEXPR_OP" ||
      !node.at("A_Expr").contains("lexpr") || !node.at("A_Expr").contains("rexpr") ||
      node_kind(node.at("A_Expr").at("lexpr")) != "FuncCall")
    fail("HAVING other than <aggregate> <comparison> <constant>", node);
  h.op = op_name(node.at("A_Expr"));
  static const char* kOps[] = {"=", "<>", "<", "<=", ">", ">="};
  if (std::find(std::begin(kOps), std::end(kOps), h.op) == std::end(kOps))
    fail(fmt::format("operator {} in HAVING", h.op), node);
  h.agg = aggregate(node.at("A_Expr").at("lexpr"));
  h.lit = literal(node.at("A_Expr").at("rexpr"), nullptr);
  if (h.lit.is_text) error("type error: an aggregate compared with text", node);
  return h;
}

std::string output_name(const Json& val) {
  std::string kind = node_kind(val);
  if (kind == "ColumnRef") {
    const Json& last = val.at("ColumnRef").at("fields").back();
    return last.contains("String") ? last.at("String").value("sval", "") : "*";  // or A_Star
  }
  if (kind == "FuncCall") {
    std::string n = val.at("FuncCall").at("funcname").back().at("String").value("sval", "");
    return n + (val.at("FuncCall").value("agg_star", false) ? "(*)" : "(...)");
  }
  return "?column?";
}

}  // namespace

BoundQuery Binder::bind(const Json& stmt) {
  const Json& s = stmt.at("SelectStmt");
  if (s.value("op", "SETOP_NONE") != "SETOP_NONE") fail("UNION / INTERSECT / EXCEPT", stmt);
  if (s.contains("withClause")) fail("WITH", s.at("withClause"));
  if (s.contains("distinctClause")) fail("SELECT DISTINCT", stmt);
  if (s.contains("windowClause")) fail("WINDOW", stmt);
  if (s.contains("limitOffset")) fail("OFFSET", s.at("limitOffset"));
  if (s.contains("valuesLists")) fail("VALUES", stmt);
  if (!s.contains("fromClause")) fail("SELECT without FROM", stmt);
  for (const Json& f : s.at("fromClause")) {
    std::string kind = node_kind(f);
    if (kind == "RangeSubselect") error("subqueries are not supported", f);
    if (kind == "JoinExpr") fail("JOIN syntax (list the tables in FROM, join in WHERE)", f);
    if (kind != "RangeVar") fail(kind + " in FROM", f);
    const Json& rv = f.at("RangeVar");
    std::string name = rv.value("relname", "");
    int t = cat_.find(name);
    if (t < 0) error(fmt::format("unknown table {}", name), f);
    std::string alias = rv.contains("alias") ? rv.at("alias").value("aliasname", name) : name;
    for (const From& x : from_)
      if (x.alias == alias) error(fmt::format("table {} appears twice in FROM", alias), f);
    from_.push_back({t, alias, rv.value("location", int64_t{-1})});
  }

  // Joins: every equality of two columns is a key join between the fact table and a dimension.
  struct Edge {
    int fa, ca, fb, cb;
    const Json* node;
  };
  std::vector<Edge> edges;
  std::vector<const Json*> conjuncts;
  auto collect = [&](auto&& self, const Json& n) -> void {
    if (node_kind(n) == "BoolExpr" && n.at("BoolExpr").value("boolop", "") == "AND_EXPR") {
      for (const Json& k : n.at("BoolExpr").at("args")) self(self, k);
      return;
    }
    conjuncts.push_back(&n);
  };
  if (s.contains("whereClause")) collect(collect, s.at("whereClause"));
  for (const Json* n : conjuncts) {
    if (node_kind(*n) != "A_Expr") continue;
    const Json& a = (*n).at("A_Expr");
    if (a.value("kind", "") != "AEXPR_OP" || !a.contains("lexpr") ||
        node_kind(a.at("lexpr")) != "ColumnRef" || !a.contains("rexpr") ||
        node_kind(a.at("rexpr")) != "ColumnRef")
      continue;
    if (op_name(a) != "=") fail("a comparison of two columns other than a key join", *n);
    auto [fa, ca] = resolve(a.at("lexpr").at("ColumnRef"));
    auto [fb, cb] = resolve(a.at("rexpr").at("ColumnRef"));
    if (fa == fb) fail("a comparison of two columns of one table", *n);
    edges.push_back({fa, ca, fb, cb, n});
  }
  // Which side references the other: a declared foreign key, else the side whose column is not
  // the other's primary key.
  auto references = [&](int fa, int ca, int fb, int cb) {
    const Table& ta = cat_.tables[size_t(from_[size_t(fa)].table)];
    const Table& tb = cat_.tables[size_t(from_[size_t(fb)].table)];
    for (const ForeignKey& fk : ta.foreign_keys)
      if (fk.column == ca && fk.ref_table == tb.name &&
          fk.ref_column == tb.columns[size_t(cb)].name)
        return true;
    return tb.primary_key == cb && ta.primary_key != ca;
  };
  int fact = from_.size() == 1 ? 0 : -1;
  for (Edge& e : edges) {
    if (!references(e.fa, e.ca, e.fb, e.cb)) {
      if (!references(e.fb, e.cb, e.fa, e.ca))
        fail("a join that is not on a dimension's key", *e.node);
      std::swap(e.fa, e.fb);
      std::swap(e.ca, e.cb);
    }
    if (fact >= 0 && fact != e.fa)
      fail(fmt::format("a join between two dimensions ({} is not the fact table {})",
                       from_[size_t(e.fa)].alias, from_[size_t(fact)].alias),
           *e.node);
    fact = e.fa;
  }
  if (fact < 0) fail("a cross product (FROM tables without a key join)", s.at("fromClause"));
  q_.fact = from_[size_t(fact)].table;
  dim_of_from_.assign(from_.size(), -2);
  dim_of_from_[size_t(fact)] = -1;
  for (const Edge& e : edges) {
    if (dim_of_from_[size_t(e.fb)] != -2)
      error(fmt::format("table {} joined twice", from_[size_t(e.fb)].alias), *e.node);
    dim_of_from_[size_t(e.fb)] = static_cast<int>(q_.dims.size());
    q_.dims.push_back({from_[size_t(e.fb)].table, e.ca, e.cb});
  }
  for (size_t i = 0; i < from_.size(); ++i)
    if (dim_of_from_[i] == -2)
      throw Error(Errc::invalid_argument,
                  fmt::format("table {} is not joined to the fact table (a cross product is not "
                              "supported){}",
                              from_[i].alias, where(p_, from_[i].location)));

  for (const Json* n : conjuncts) where_conjunct(*n);

  for (const Json& g : s.value("groupClause", Json::array())) {
    if (node_kind(g) != "ColumnRef") fail("GROUP BY other than a column", g);
    AttrRef a = attr_of(g);
    if (std::find(q_.group.begin(), q_.group.end(), a) == q_.group.end()) q_.group.push_back(a);
  }
  if (!s.contains("targetList"))
    error("SELECT names no columns or aggregates to return", s.value("fromClause", s));
  for (const Json& t : s.at("targetList")) {
    const Json& rt = t.at("ResTarget");
    const Json& val = rt.at("val");
    Output o;
    o.name = rt.contains("name") ? rt.at("name").get<std::string>() : output_name(val);
    std::string kind = node_kind(val);
    if (kind == "ColumnRef") {
      AttrRef a = attr_of(val);
      auto it = std::find(q_.group.begin(), q_.group.end(), a);
      if (it == q_.group.end())
        error(fmt::format("column {} must appear in GROUP BY or in an aggregate",
                          attr_name(cat_, q_, a)),
              val);
      o.group = static_cast<int>(it - q_.group.begin());
    } else if (kind == "FuncCall") {
      o.agg = aggregate(val);
    } else if (kind == "SubLink") {
      error("subqueries are not supported", val);
    } else {
      fail(fmt::format("{} in the select list (columns and aggregates only)", kind), val);
    }
    q_.outputs.push_back(std::move(o));
  }
  if (s.contains("havingClause")) {
    q_.has_having = true;
    q_.having = having(s.at("havingClause"));
  }
  for (const Json& sb : s.value("sortClause", Json::array())) {
    const Json& b = sb.at("SortBy");
    const Json& n = b.at("node");
    OrderKey k;
    k.desc = b.value("sortby_dir", "") == "SORTBY_DESC";
    if (b.value("sortby_nulls", "SORTBY_NULLS_DEFAULT") != "SORTBY_NULLS_DEFAULT")
      fail("NULLS FIRST / LAST", n);
    std::string kind = node_kind(n);
    if (kind == "A_Const" && n.at("A_Const").contains("ival")) {
      int64_t pos = n.at("A_Const").at("ival").value("ival", int64_t{0});
      if (pos < 1 || pos > static_cast<int64_t>(q_.outputs.size()))
        error(fmt::format("ORDER BY position {} is out of range (the select list has {} columns)",
                          pos, q_.outputs.size()),
              n);
      k.output = static_cast<int>(pos - 1);
    } else if (kind == "ColumnRef") {
      const Json& f = n.at("ColumnRef").at("fields");
      std::string nm = f.back().at("String").value("sval", "");
      for (size_t i = 0; i < q_.outputs.size() && f.size() == 1; ++i)
        if (q_.outputs[i].name == nm) k.output = static_cast<int>(i);
      if (k.output < 0) {
        AttrRef a = attr_of(n);
        for (size_t i = 0; i < q_.outputs.size(); ++i)
          if (q_.outputs[i].group >= 0 && q_.group[size_t(q_.outputs[i].group)] == a)
            k.output = static_cast<int>(i);
      }
      if (k.output < 0) fail("ORDER BY a column that is not in the select list", n);
    } else if (kind == "FuncCall") {
      size_t before = q_.aggs.size();
      int agg = aggregate(n);
      for (size_t i = 0; i < q_.outputs.size(); ++i)
        if (q_.outputs[i].agg == agg) k.output = static_cast<int>(i);
      if (k.output < 0 || q_.aggs.size() != before)
        fail("ORDER BY an aggregate that is not in the select list", n);
    } else {
      fail("ORDER BY an expression that is not in the select list", n);
    }
    q_.order.push_back(k);
  }
  if (s.contains("limitCount")) {
    const Json& l = s.at("limitCount");
    if (node_kind(l) != "A_Const" || !l.at("A_Const").contains("ival"))
      fail("LIMIT other than an integer", l);
    q_.limit = l.at("A_Const").at("ival").value("ival", int64_t{0});
    if (q_.limit < 0) fail("a negative LIMIT", l);
  }
  return std::move(q_);
}

BoundQuery bind_select(const Catalog& cat, const Parsed& parsed) {
  const Json& stmts = parsed.tree.at("stmts");
  if (stmts.size() != 1)
    throw Error(Errc::invalid_argument,
                fmt::format("expected one statement, got {}", stmts.size()));
  const Json* stmt = &stmts[0].at("stmt");
  bool explain = false;
  if (node_kind(*stmt) == "ExplainStmt") {
    explain = true;
    stmt = &(*stmt).at("ExplainStmt").at("query");
  }
  if (node_kind(*stmt) != "SelectStmt")
    unsupported(parsed, node_kind(*stmt) + " (only SELECT)", location_of(*stmt));
  Binder b(cat, parsed);
  BoundQuery q;
  try {
    q = b.bind(*stmt);
  } catch (const Json::exception& e) {
    // A parse-tree shape the binder does not expect: named (the fuzzer treats Errc::internal as
    // a bug to fix) rather than escaping as a JSON exception.
    throw Error(Errc::internal, fmt::format("binding this statement: unexpected parse tree ({}){}",
                                            e.what(), where(parsed, location_of(*stmt))));
  }
  q.explain = explain;
  q.text = parsed.text;
  return q;
}

}  // namespace raydb::sql::detail
