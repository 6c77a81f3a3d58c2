select sum(c_name) from lineorder, customer where lo_custkey = c_custkey
