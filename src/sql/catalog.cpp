// CREATE TABLE statements to the catalog: column types, primary and foreign keys.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sql/catalog.hpp"

namespace raydb::sql::detail {

const char* type_name(ColType t) {
  switch (t) {
    case ColType::integer:
      return "integer";
    case ColType::decimal:
      return "decimal";
    case ColType::text:
      return "text";
    case ColType::date:
      return "date";
  }
  return "?";
}

int Table::find(std::string_view column) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == column) return static_cast<int>(i);
  return -1;
}

int Catalog::find(std::string_view table) const {
  for (size_t i = 0; i < tables.size(); ++i)
    if (tables[i].name == table) return static_cast<int>(i);
  return -1;
}

namespace {

std::string sval(const Json& s) {
  return s.at("String").value("sval", "");
}

// The last name of a TypeName ("pg_catalog"."int4" -> int4) and its column type.
void column_type(const Parsed& p, const Json& tn, Column& c) {
  std::string name = sval(tn.at("names").back());
  int64_t loc = tn.value("location", int64_t{-1});
  if (tn.contains("arrayBounds")) unsupported(p, "array type", loc);
  if (name == "int2" || name == "int4" || name == "int8")
    c.type = ColType::integer;
  else if (name == "numeric") {
    c.type = ColType::decimal;
    c.scale = 0;
    if (tn.contains("typmods") && tn.at("typmods").size() == 2) {
      // Checked before reading: a const JSON's operator[] on a missing member is undefined
      // (DECIMAL(10, B) read out of bounds; found by tests/fuzz/fuzz_sql_load).
      const Json& m = tn.at("typmods")[1];
      if (!m.contains("A_Const") || !m.at("A_Const").contains("ival") ||
          !m.at("A_Const").at("ival").is_object())
        unsupported(
            p, fmt::format("a decimal scale that is not a whole number (column {})", c.name), loc);
      c.scale = m.at("A_Const").at("ival").value("ival", 0);
    }
    if (c.scale < 0 || c.scale > 9)
      throw Error(
          Errc::invalid_argument,
          fmt::format("decimal scale {} of column {} is outside the engine's 0 to 9 digits{}",
                      c.scale, c.name, where(p, loc)));
  } else if (name == "varchar" || name == "bpchar" || name == "text")
    c.type = ColType::text;
  else if (name == "date")
    c.type = ColType::date;
  else
    unsupported(p, fmt::format("column type {} (column {})", name, c.name), loc);
}

void add_constraint(const Parsed& p, Table& t, const Json& con, int column) {
  const Json& c = con.at("Constraint");
  std::string kind = c.value("contype", "");
  int64_t loc = c.value("location", int64_t{-1});
  auto key_of = [&](const char* field) {
    if (column >= 0 && !c.contains(field)) return column;
    const Json& keys = c.at(field);
    if (keys.size() != 1) unsupported(p, "a multi-column key", loc);
    int k = t.find(sval(keys[0]));
    if (k < 0)
      throw Error(Errc::invalid_argument, fmt::format("key column {} is not a column of {}{}",
                                                      sval(keys[0]), t.name, where(p, loc)));
    return k;
  };
  if (kind == "CONSTR_PRIMARY") {
    t.primary_key = key_of("keys");
  } else if (kind == "CONSTR_FOREIGN") {
    ForeignKey fk;
    fk.column = key_of("fk_attrs");
    fk.ref_table = c.at("pktable").value("relname", "");
    if (c.contains("pk_attrs")) {
      if (c.at("pk_attrs").size() != 1) unsupported(p, "a multi-column foreign key", loc);
      fk.ref_column = sval(c.at("pk_attrs")[0]);
    }
    t.foreign_keys.push_back(fk);
  } else if (kind == "CONSTR_NOTNULL" || kind == "CONSTR_NULL" || kind == "CONSTR_UNIQUE") {
    // Columns never hold NULL here (the loader refuses empty numbers); uniqueness is not used.
  } else {
    unsupported(p, fmt::format("constraint {}", kind), loc);
  }
}

}  // namespace

namespace {
void add_tables(Catalog& cat, const Parsed& p) {
  for (const Json& raw : p.tree.at("stmts")) {
    const Json& stmt = raw.at("stmt");
    int64_t start = raw.value("stmt_location", int64_t{0});
    if (node_kind(stmt) != "CreateStmt") {
      // stmt_location is just past the previous ';': name the statement's first character.
      int64_t first = start;
      while (static_cast<size_t>(first) < p.text.size() &&
             std::isspace(static_cast<unsigned char>(p.text[static_cast<size_t>(first)])))
        ++first;
      unsupported(p, node_kind(stmt) + " in a schema", first);
    }
    const Json& cs = stmt.at("CreateStmt");
    Table t;
    t.name = cs.at("relation").value("relname", "");
    int64_t name_loc = cs.at("relation").value("location", int64_t{-1});
    if (cat.find(t.name) >= 0)
      throw Error(Errc::invalid_argument,
                  fmt::format("table {} is defined twice{}", t.name, where(p, name_loc)));
    int64_t len = raw.value("stmt_len", int64_t{0});
    t.ddl = len > 0 ? p.text.substr(static_cast<size_t>(start), static_cast<size_t>(len))
                    : p.text.substr(static_cast<size_t>(start));
    while (!t.ddl.empty() && (t.ddl.front() == '\n' || t.ddl.front() == ' ')) t.ddl.erase(0, 1);
    // value() returns a copy: kept here, since table_constraints points into it past the loop
    // (iterating the temporary left those pointers dangling; found by tests/fuzz/fuzz_sql_load).
    const Json elements = cs.value("tableElts", Json::array());
    std::vector<const Json*> table_constraints;
    for (const Json& e : elements) {
      if (e.contains("ColumnDef")) {
        const Json& cd = e.at("ColumnDef");
        Column c;
        c.name = cd.value("colname", "");
        if (t.find(c.name) >= 0)
          throw Error(Errc::invalid_argument,
                      fmt::format("column {} of {} is defined twice{}", c.name, t.name,
                                  where(p, location_of(cd))));
        column_type(p, cd.at("typeName"), c);
        t.columns.push_back(std::move(c));
        for (const Json& con : cd.value("constraints", Json::array()))
          add_constraint(p, t, con, static_cast<int>(t.columns.size() - 1));
      } else if (e.contains("Constraint")) {
        table_constraints.push_back(&e);
      } else {
        unsupported(p, node_kind(e) + " in CREATE TABLE", location_of(e));
      }
    }
    for (const Json* con : table_constraints) add_constraint(p, t, *con, -1);
    if (t.columns.empty())
      throw Error(Errc::invalid_argument,
                  fmt::format("table {} has no columns{}", t.name, where(p, name_loc)));
    cat.tables.push_back(std::move(t));
  }
  // Foreign keys name a table and column defined somewhere in the schema (any order).
  for (Table& t : cat.tables)
    for (ForeignKey& fk : t.foreign_keys) {
      int rt = cat.find(fk.ref_table);
      if (rt < 0)
        throw Error(Errc::invalid_argument,
                    fmt::format("foreign key {}.{} references unknown table {}", t.name,
                                t.columns[size_t(fk.column)].name, fk.ref_table));
      const Table& r = cat.tables[size_t(rt)];
      if (fk.ref_column.empty()) {
        if (r.primary_key < 0)
          throw Error(Errc::invalid_argument,
                      fmt::format("foreign key {}.{} references {}, which has no primary key",
                                  t.name, t.columns[size_t(fk.column)].name, r.name));
        fk.ref_column = r.columns[size_t(r.primary_key)].name;
      } else if (r.find(fk.ref_column) < 0) {
        throw Error(Errc::invalid_argument,
                    fmt::format("foreign key {}.{} references unknown column {}.{}", t.name,
                                t.columns[size_t(fk.column)].name, r.name, fk.ref_column));
      }
    }
}

}  // namespace

void load_ddl(Catalog& cat, std::string_view ddl, std::string_view source) {
  Parsed p = parse_sql(ddl, source);
  try {
    add_tables(cat, p);
  } catch (const Json::exception& e) {
    // A parse-tree shape this reader does not expect: named (the fuzzer treats Errc::internal as
    // a bug to fix) rather than escaping as a JSON exception.
    throw Error(Errc::internal, fmt::format("reading the schema: unexpected parse tree ({}){}",
                                            e.what(), where(p, -1)));
  }
}

}  // namespace raydb::sql::detail
