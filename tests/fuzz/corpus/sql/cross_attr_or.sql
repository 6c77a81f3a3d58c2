select count(*) from lineorder where lo_quantity < 3 or lo_discount > 4
