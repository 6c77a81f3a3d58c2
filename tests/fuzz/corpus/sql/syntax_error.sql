select sum(lo_revenue) form lineorder
