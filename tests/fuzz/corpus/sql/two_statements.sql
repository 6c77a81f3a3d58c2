select count(*) from lineorder; select count(*) from lineorder
