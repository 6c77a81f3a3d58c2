select sum(lo_revenue) from lineorder left join date on lo_orderdate = d_datekey
