// Evaluating bound predicates on host values: the planner uses it to turn a filter on a
// dimension column into the set of codes that pass, and the finisher to check HAVING.
#include <algorithm>

#include "sql/bind.hpp"

namespace raydb::sql::detail {

bool compare_scaled(int64_t a, int as, const std::string& op, int64_t b, int bs) {
  __int128 x = a, y = b;
  for (int i = as; i < bs; ++i) x *= 10;
  for (int i = bs; i < as; ++i) y *= 10;
  if (op == "=") return x == y;
  if (op == "<>") return x != y;
  if (op == "<") return x < y;
  if (op == "<=") return x <= y;
  if (op == ">") return x > y;
  return x >= y;
}

namespace {
bool cmp_value(const Column& col, int64_t v, const std::string& t, const std::string& op,
               const Literal& l) {
  if (col.type == ColType::text) {
    int c = t.compare(l.text);
    if (op == "=") return c == 0;
    if (op == "<>") return c != 0;
    if (op == "<") return c < 0;
    if (op == "<=") return c <= 0;
    if (op == ">") return c > 0;
    return c >= 0;
  }
  return compare_scaled(v, col.scale, op, l.mantissa, l.scale);
}
}  // namespace

bool eval_pred(const Pred& p, const Column& col, int64_t v, const std::string& t) {
  switch (p.kind) {
    case Pred::Kind::cmp:
      return cmp_value(col, v, t, p.op, p.lits[0]);
    case Pred::Kind::between:
      return cmp_value(col, v, t, ">=", p.lits[0]) && cmp_value(col, v, t, "<=", p.lits[1]);
    case Pred::Kind::in:
      return std::any_of(p.lits.begin(), p.lits.end(),
                         [&](const Literal& l) { return cmp_value(col, v, t, "=", l); });
    case Pred::Kind::all:
      return std::all_of(p.kids.begin(), p.kids.end(),
                         [&](const Pred& k) { return eval_pred(k, col, v, t); });
    case Pred::Kind::any:
      return std::any_of(p.kids.begin(), p.kids.end(),
                         [&](const Pred& k) { return eval_pred(k, col, v, t); });
    case Pred::Kind::negate:
      return !eval_pred(p.kids[0], col, v, t);
  }
  return false;
}

}  // namespace raydb::sql::detail
