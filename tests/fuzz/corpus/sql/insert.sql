insert into lineorder values (1)
