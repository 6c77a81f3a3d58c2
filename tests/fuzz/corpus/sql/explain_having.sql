explain select d_year, sum(lo_revenue) from lineorder, date where lo_orderdate = d_datekey group by d_year having sum(lo_revenue) > 10 order by d_year desc limit 3
