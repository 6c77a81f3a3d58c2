select sum(lo_revenue) from lineorder where lo_quantity = 'abc'
