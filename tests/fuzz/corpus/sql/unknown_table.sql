select sum(x) from nosuch
