// The SSB calendar: days since 1992-01-01 to civil dates, over the date table's 2,556 days.
#pragma once

#include <cstdint>

namespace raydb::ssb {

inline constexpr uint32_t kSsbDays = 2556;  // 1992-01-01 .. 1998-12-30, as the SSB date table

struct CivilDate {
  uint32_t year, month, day, day_of_year;  // day_of_year from 1
};

constexpr bool is_leap(uint32_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

constexpr uint32_t days_in_month(uint32_t y, uint32_t m) {
  constexpr uint32_t kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

// Days since 1992-01-01 (any count; not limited to the date table).
constexpr CivilDate ssb_civil(uint32_t days) {
  uint32_t y = 1992;
  while (days >= (is_leap(y) ? 366u : 365u)) days -= is_leap(y++) ? 366 : 365;
  uint32_t doy = days + 1, m = 1;
  while (days >= days_in_month(y, m)) days -= days_in_month(y, m++);
  return {y, m, days + 1, doy};
}

}  // namespace raydb::ssb
