// The host stage after the launch: output rows, HAVING, ORDER BY and LIMIT.
#pragma once

#include "raydb/sql.hpp"
#include "sql/bind.hpp"
#include "sql/plan.hpp"
#include "sql/rt_exec.hpp"

namespace raydb::sql::detail {

SqlTable finish(const BoundQuery& q, const Catalog& cat, const RtPlan& p, const GroupResults& r);

}  // namespace raydb::sql::detail
