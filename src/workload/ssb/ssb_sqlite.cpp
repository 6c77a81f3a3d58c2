// The SQLite reference: the query columns of the five tables in an in-memory database, loaded
// through prepared statements in one transaction, and the SSB SQL run as written.
#include <fmt/format.h>
#include <sqlite3.h>

#include "common/capture.hpp"
#include "common/sqlite_db.hpp"
#include "raydb/ssb_sqlite.hpp"

namespace raydb::ssb {

struct SqliteReference::Db : detail::SqliteDb {};

namespace {
void text(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
}
}  // namespace

SqliteReference::SqliteReference(std::unique_ptr<Db> db) : db_(std::move(db)) {}
SqliteReference::SqliteReference(SqliteReference&&) noexcept = default;
SqliteReference& SqliteReference::operator=(SqliteReference&&) noexcept = default;
SqliteReference::~SqliteReference() = default;

namespace {
void party(SqliteReference::Db& db, const char* table, char p, const PartyColumns& t) {
  db.exec(
      fmt::format("create table {0} ({1}_{2}key integer primary key, {1}_city text, "
                  "{1}_nation text, {1}_region text)",
                  table, p, p == 'c' ? "cust" : "supp"));
  db.insert(table, fmt::format("insert into {} values (?, ?, ?, ?)", table), t.size(),
            [&](sqlite3_stmt* s, size_t i) {
              sqlite3_bind_int64(s, 1, t.key[i]);
              text(s, 2, t.city[i]);
              text(s, 3, t.nation[i]);
              text(s, 4, t.region[i]);
            });
}
}  // namespace

Result<SqliteReference> SqliteReference::load(const SsbTables& t) {
  return detail::capture([&] {
    auto db = std::make_unique<Db>();
    db->exec("begin");
    db->exec(
        "create table lineorder (lo_orderdate integer, lo_custkey integer, lo_partkey integer, "
        "lo_suppkey integer, lo_quantity integer, lo_extendedprice integer, lo_discount integer, "
        "lo_revenue integer, lo_supplycost integer)");
    const LineorderColumns& lo = t.lineorder;
    db->insert("lineorder", "insert into lineorder values (?, ?, ?, ?, ?, ?, ?, ?, ?)", lo.size(),
               [&](sqlite3_stmt* s, size_t i) {
                 int c = 1;
                 for (const auto* col :
                      {&lo.orderdate, &lo.custkey, &lo.partkey, &lo.suppkey, &lo.quantity,
                       &lo.extendedprice, &lo.discount, &lo.revenue, &lo.supplycost})
                   sqlite3_bind_int64(s, c++, (*col)[i]);
               });
    party(*db, "customer", 'c', t.customer);
    party(*db, "supplier", 's', t.supplier);
    db->exec(
        "create table part (p_partkey integer primary key, p_mfgr text, p_category text, "
        "p_brand1 text)");
    db->insert("part", "insert into part values (?, ?, ?, ?)", t.part.size(),
               [&](sqlite3_stmt* s, size_t i) {
                 sqlite3_bind_int64(s, 1, t.part.partkey[i]);
                 text(s, 2, t.part.mfgr[i]);
                 text(s, 3, t.part.category[i]);
                 text(s, 4, t.part.brand1[i]);
               });
    db->exec(
        "create table date (d_datekey integer primary key, d_year integer, d_yearmonthnum "
        "integer, d_yearmonth text, d_weeknuminyear integer)");
    db->insert("date", "insert into date values (?, ?, ?, ?, ?)", t.date.size(),
               [&](sqlite3_stmt* s, size_t i) {
                 sqlite3_bind_int64(s, 1, t.date.datekey[i]);
                 sqlite3_bind_int64(s, 2, t.date.year[i]);
                 sqlite3_bind_int64(s, 3, t.date.yearmonthnum[i]);
                 text(s, 4, t.date.yearmonth[i]);
                 sqlite3_bind_int64(s, 5, t.date.weeknuminyear[i]);
               });
    db->exec("commit");
    return SqliteReference(std::move(db));
  });
}

Result<ResultTable> SqliteReference::run(std::string_view query) {
  return detail::capture([&] {
    auto rows = db_->query(query_sql(query).value(), Errc::internal, /*reals_by_fmt=*/false);
    ResultTable r;
    r.columns = std::move(rows.columns);
    r.rows = std::move(rows.rows);
    return r;
  });
}

}  // namespace raydb::ssb
