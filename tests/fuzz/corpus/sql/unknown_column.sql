select sum(lo_nosuch) from lineorder
