select sum(lo_revenue - lo_supplycost * 2) from lineorder where lo_orderdate >= 19920103
