-- The Star Schema Benchmark (O'Neil, O'Neil, Chen, Revilak): its five tables with the columns
-- and order that dbgen's .tbl files have. Money in cents and dates as yyyymmdd, as dbgen writes.
CREATE TABLE date (
  d_datekey          INTEGER PRIMARY KEY,
  d_date             VARCHAR(18),
  d_dayofweek        VARCHAR(8),
  d_month            VARCHAR(9),
  d_year             INTEGER,
  d_yearmonthnum     INTEGER,
  d_yearmonth        VARCHAR(7),
  d_daynuminweek     INTEGER,
  d_daynuminmonth    INTEGER,
  d_daynuminyear     INTEGER,
  d_monthnuminyear   INTEGER,
  d_weeknuminyear    INTEGER,
  d_sellingseason    VARCHAR(12),
  d_lastdayinweekfl  INTEGER,
  d_lastdayinmonthfl INTEGER,
  d_holidayfl        INTEGER,
  d_weekdayfl        INTEGER
);
CREATE TABLE customer (
  c_custkey    INTEGER PRIMARY KEY,
  c_name       VARCHAR(25),
  c_address    VARCHAR(25),
  c_city       VARCHAR(10),
  c_nation     VARCHAR(15),
  c_region     VARCHAR(12),
  c_phone      VARCHAR(15),
  c_mktsegment VARCHAR(10)
);
CREATE TABLE supplier (
  s_suppkey INTEGER PRIMARY KEY,
  s_name    VARCHAR(25),
  s_address VARCHAR(25),
  s_city    VARCHAR(10),
  s_nation  VARCHAR(15),
  s_region  VARCHAR(12),
  s_phone   VARCHAR(15)
);
CREATE TABLE part (
  p_partkey   INTEGER PRIMARY KEY,
  p_name      VARCHAR(22),
  p_mfgr      VARCHAR(6),
  p_category  VARCHAR(7),
  p_brand1    VARCHAR(9),
  p_color     VARCHAR(11),
  p_type      VARCHAR(25),
  p_size      INTEGER,
  p_container VARCHAR(10)
);
CREATE TABLE lineorder (
  lo_orderkey      INTEGER,
  lo_linenumber    INTEGER,
  lo_custkey       INTEGER REFERENCES customer (c_custkey),
  lo_partkey       INTEGER REFERENCES part (p_partkey),
  lo_suppkey       INTEGER REFERENCES supplier (s_suppkey),
  lo_orderdate     INTEGER REFERENCES date (d_datekey),
  lo_orderpriority VARCHAR(15),
  lo_shippriority  VARCHAR(1),
  lo_quantity      INTEGER,
  lo_extendedprice INTEGER,
  lo_ordtotalprice INTEGER,
  lo_discount      INTEGER,
  lo_revenue       INTEGER,
  lo_supplycost    INTEGER,
  lo_tax           INTEGER,
  lo_commitdate    INTEGER,
  lo_shipmode      VARCHAR(10)
);
