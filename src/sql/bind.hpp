// A SELECT bound to the catalog: the fact table and its joined dimensions, one filter per
// attribute, the group attributes, the aggregates, and what is done after aggregation (HAVING,
// ORDER BY, LIMIT). Anything outside the RTCUDB query class is refused while binding.
#pragma once

#include <string>
#include <vector>

#include "sql/catalog.hpp"

namespace raydb::sql::detail {

// A column of the fact table (dim = -1) or of dims[dim].
struct AttrRef {
  int dim = -1;
  int column = -1;
  bool operator==(const AttrRef&) const = default;
};

struct Dim {
  int table = -1;
  int fact_column = -1;  // the fact table's foreign key
  int key_column = -1;   // the dimension's key it equals
};

// A literal: text, or an exact number mantissa / 10^scale.
struct Literal {
  bool is_text = false;
  std::string text;
  int64_t mantissa = 0;
  int scale = 0;
};

// A predicate on one attribute: a comparison, BETWEEN, IN, or AND/OR/NOT of predicates.
struct Pred {
  enum class Kind { cmp, between, in, all, any, negate } kind = Kind::cmp;
  std::string op;             // cmp: = <> < <= > >=
  std::vector<Literal> lits;  // cmp: 1; between: 2; in: n (converted to the attribute's type)
  std::vector<Pred> kids;     // all / any / negate
};

struct Filter {
  AttrRef attr;
  Pred pred;
};

// An integer expression over fact columns, exact at `scale` decimal digits.
struct Expr {
  char op = 'c';  // 'c' column, 'k' constant, '+', '-', '*'
  int column = -1;
  int64_t value = 0;  // constant (at `scale`)
  int scale = 0;
  std::vector<Expr> kids;
};

enum class AggFunc { sum, count, min, max, avg };

struct Aggregate {
  AggFunc func = AggFunc::sum;
  bool star = false;  // COUNT(*)
  Expr expr;
  std::string key;  // canonical text: identical aggregates share one slot
};

struct Output {
  std::string name;
  int group = -1;  // index into BoundQuery::group, or
  int agg = -1;    // index into BoundQuery::aggs
};

struct HavingPred {
  enum class Kind { cmp, all, any, negate } kind = Kind::cmp;
  int agg = -1;
  std::string op;
  Literal lit;
  std::vector<HavingPred> kids;
};

struct OrderKey {
  int output = -1;
  bool desc = false;
};

struct BoundQuery {
  int fact = -1;  // catalog table
  std::vector<Dim> dims;
  std::vector<Filter> filters;  // at most one per attribute (conjuncts on one attribute merged)
  std::vector<AttrRef> group;
  std::vector<Aggregate> aggs;
  std::vector<Output> outputs;
  bool has_having = false;
  HavingPred having;
  std::vector<OrderKey> order;
  int64_t limit = -1;
  bool explain = false;
  std::string text;  // the SELECT's SQL, without EXPLAIN
};

const Column& column_of(const Catalog& cat, const BoundQuery& q, AttrRef a);
std::string attr_name(const Catalog& cat, const BoundQuery& q, AttrRef a);

BoundQuery bind_select(const Catalog& cat, const Parsed& parsed);

// Pred evaluation on one attribute value (numbers at the column's scale, or text).
bool eval_pred(const Pred& p, const Column& col, int64_t value, const std::string& text);
// a / 10^as <op> b / 10^bs, exactly.
bool compare_scaled(int64_t a, int as, const std::string& op, int64_t b, int bs);

}  // namespace raydb::sql::detail
