select count(*) from lineorder where lo_quantity < 99999999999999999999999
