// The SSB generator: value distributions of the SSB specification (itself TPC-H's, clause 4.2.3,
// with the star schema's denormalized dimensions), written row by row into dbgen-compatible
// `.tbl` files while the query columns are kept in memory.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "common/capture.hpp"
#include "raydb/ssb_data.hpp"
#include "workload/ssb/ssb_calendar.hpp"

namespace raydb::ssb {

namespace {

// splitmix64: small, fast and deterministic; one stream per table so tables do not depend on
// each other's row counts.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  uint32_t between(uint32_t lo, uint32_t hi) {
    return lo + static_cast<uint32_t>(next() % (uint64_t{hi} - lo + 1));
  }
  template <class T, size_t N>
  const T& pick(const std::array<T, N>& a) {
    return a[next() % N];
  }

 private:
  uint64_t s_;
};

struct NationInfo {
  const char* name;
  const char* region;
};
// TPC-H's 25 nations in their key order, with their regions.
constexpr std::array<NationInfo, 25> kNations = {
    {{"ALGERIA", "AFRICA"},       {"ARGENTINA", "AMERICA"},  {"BRAZIL", "AMERICA"},
     {"CANADA", "AMERICA"},       {"EGYPT", "MIDDLE EAST"},  {"ETHIOPIA", "AFRICA"},
     {"FRANCE", "EUROPE"},        {"GERMANY", "EUROPE"},     {"INDIA", "ASIA"},
     {"INDONESIA", "ASIA"},       {"IRAN", "MIDDLE EAST"},   {"IRAQ", "MIDDLE EAST"},
     {"JAPAN", "ASIA"},           {"JORDAN", "MIDDLE EAST"}, {"KENYA", "AFRICA"},
     {"MOROCCO", "AFRICA"},       {"MOZAMBIQUE", "AFRICA"},  {"PERU", "AMERICA"},
     {"CHINA", "ASIA"},           {"ROMANIA", "EUROPE"},     {"SAUDI ARABIA", "MIDDLE EAST"},
     {"VIETNAM", "ASIA"},         {"RUSSIA", "EUROPE"},      {"UNITED KINGDOM", "EUROPE"},
     {"UNITED STATES", "AMERICA"}}};

constexpr std::array<const char*, 5> kSegments = {"AUTOMOBILE", "BUILDING", "FURNITURE",
                                                  "MACHINERY", "HOUSEHOLD"};
constexpr std::array<const char*, 5> kPriorities = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECI",
                                                    "5-LOW"};
constexpr std::array<const char*, 7> kShipModes = {"REG AIR", "AIR",  "RAIL", "SHIP",
                                                   "TRUCK",   "MAIL", "FOB"};
constexpr std::array<const char*, 32> kColors = {
    "almond",    "antique",   "aquamarine", "azure",     "beige",     "bisque",     "black",
    "blanched",  "blue",      "blush",      "brown",     "burlywood", "chartreuse", "chiffon",
    "chocolate", "coral",     "cornflower", "cream",     "cyan",      "dark",       "deep",
    "dim",       "dodger",    "drab",       "firebrick", "forest",    "frosted",    "gainsboro",
    "ghost",     "goldenrod", "green",      "grey"};
constexpr std::array<const char*, 6> kTypeSize = {"STANDARD", "SMALL",   "MEDIUM",
                                                  "LARGE",    "ECONOMY", "PROMO"};
constexpr std::array<const char*, 5> kTypeFinish = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED",
                                                    "BRUSHED"};
constexpr std::array<const char*, 5> kTypeMaterial = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
constexpr std::array<const char*, 5> kContainerSize = {"SM", "LG", "MED", "JUMBO", "WRAP"};
constexpr std::array<const char*, 8> kContainerKind = {"CASE", "BOX",  "BAG", "JAR",
                                                       "PKG",  "PACK", "CAN", "DRUM"};

// Order dates run from STARTDATE to ENDDATE - 151 days, as in TPC-H (clause 4.2.3).
constexpr uint32_t kOrderDays = kSsbDays - 151;

// A `.tbl` file written through a large buffer; the path is named in every error.
class TblWriter {
 public:
  TblWriter() = default;
  TblWriter(const std::filesystem::path& path) : path_(path.string()) {
    f_.reset(std::fopen(path_.c_str(), "wb"));
    if (!f_) throw Error(Errc::io, fmt::format("cannot create {}", path_));
  }
  bool active() const { return f_ != nullptr; }
  std::string& row() { return buf_; }
  void end_row() {
    buf_ += '\n';
    if (buf_.size() > (1u << 20)) flush();
  }
  void close() {
    if (!f_) return;
    flush();
    if (std::fclose(f_.release()) != 0)
      throw Error(Errc::io, fmt::format("cannot write {}", path_));
  }

 private:
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  void flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_.get()) != buf_.size())
      throw Error(Errc::io, fmt::format("cannot write {} (disk full?)", path_));
    buf_.clear();
  }
  std::string path_;
  std::unique_ptr<std::FILE, Closer> f_;
  std::string buf_;
};

std::string random_text(Rng& rng, uint32_t min_len, uint32_t max_len) {
  static constexpr char kChars[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789,. ";
  uint32_t len = rng.between(min_len, max_len);
  std::string s(len, ' ');
  for (auto& c : s) c = kChars[rng.next() % (sizeof kChars - 1)];
  return s;
}

// City: the nation's first 9 characters, padded to 9, then a digit 0..9 (SSB specification).
std::string city_of(const char* nation, uint32_t digit) {
  return fmt::format("{:<9.9}{}", nation, digit);
}

uint32_t retail_price_cents(uint32_t partkey) {  // TPC-H P_RETAILPRICE, in cents
  return 90000 + ((partkey / 10) % 20001) + 100 * (partkey % 1000);
}

void generate_party(Rng rng, uint64_t count, bool is_customer, PartyColumns& out, TblWriter& w) {
  out.key.reserve(count);
  for (uint64_t i = 1; i <= count; ++i) {
    auto key = static_cast<uint32_t>(i);
    const NationInfo& n = kNations[rng.next() % kNations.size()];
    auto nation_index = static_cast<uint32_t>(&n - kNations.data());
    std::string city = city_of(n.name, rng.between(0, 9));
    std::string address = random_text(rng, 10, 25);
    std::string phone = fmt::format("{}-{}-{}-{}", nation_index + 10, rng.between(100, 999),
                                    rng.between(100, 999), rng.between(1000, 9999));
    const char* segment = rng.pick(kSegments);
    if (w.active()) {
      fmt::format_to(std::back_inserter(w.row()), "{}|{}#{:09}|{}|{}|{}|{}|{}|", key,
                     is_customer ? "Customer" : "Supplier", key, address, city, n.name, n.region,
                     phone);
      if (is_customer) fmt::format_to(std::back_inserter(w.row()), "{}|", segment);
      w.end_row();
    }
    out.key.push_back(key);
    out.city.push_back(std::move(city));
    out.nation.emplace_back(n.name);
    out.region.emplace_back(n.region);
  }
}

void generate_part(Rng rng, uint64_t count, PartColumns& out, TblWriter& w) {
  for (uint64_t i = 1; i <= count; ++i) {
    auto key = static_cast<uint32_t>(i);
    uint32_t m = rng.between(1, 5), c = rng.between(1, 5), b = rng.between(1, 40);
    std::string name = fmt::format("{} {}", rng.pick(kColors), rng.pick(kColors));
    const char* color = rng.pick(kColors);
    std::string type = fmt::format("{} {} {}", rng.pick(kTypeSize), rng.pick(kTypeFinish),
                                   rng.pick(kTypeMaterial));
    uint32_t size = rng.between(1, 50);
    std::string container =
        fmt::format("{} {}", rng.pick(kContainerSize), rng.pick(kContainerKind));
    std::string mfgr = fmt::format("MFGR#{}", m), category = fmt::format("MFGR#{}{}", m, c),
                brand = fmt::format("MFGR#{}{}{}", m, c, b);
    if (w.active()) {
      fmt::format_to(std::back_inserter(w.row()), "{}|{}|{}|{}|{}|{}|{}|{}|{}|", key, name, mfgr,
                     category, brand, color, type, size, container);
      w.end_row();
    }
    out.partkey.push_back(key);
    out.mfgr.push_back(std::move(mfgr));
    out.category.push_back(std::move(category));
    out.brand1.push_back(std::move(brand));
  }
}

void generate_date(DateColumns& out, TblWriter& w) {
  static constexpr std::array<const char*, 12> kMonthNames = {
      "January", "February", "March",     "April",   "May",      "June",
      "July",    "August",   "September", "October", "November", "December"};
  static constexpr std::array<const char*, 7> kDayNames = {
      "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
  for (uint32_t d = 0; d < kSsbDays; ++d) {
    CivilDate c = ssb_civil(d);
    uint32_t weekday = (d + 3) % 7;  // 1992-01-01 was a Wednesday (0 = Sunday)
    std::string ym = fmt::format("{:.3}{}", kMonthNames[c.month - 1], c.year);
    uint32_t key = c.year * 10000 + c.month * 100 + c.day;
    if (w.active()) {
      const char* season = c.month == 12  ? "Christmas"
                           : c.month <= 2 ? "Winter"
                           : c.month <= 5 ? "Spring"
                           : c.month <= 8 ? "Summer"
                                          : "Fall";
      bool last_in_month = c.day == days_in_month(c.year, c.month);
      bool holiday = (c.month == 1 && c.day == 1) || (c.month == 7 && c.day == 4) ||
                     (c.month == 12 && c.day == 25);
      fmt::format_to(
          std::back_inserter(w.row()), "{}|{} {}, {}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|",
          key, kMonthNames[c.month - 1], c.day, c.year, kDayNames[weekday],
          kMonthNames[c.month - 1], c.year, c.year * 100 + c.month, ym, weekday + 1, c.day,
          c.day_of_year, c.month, c.day_of_year / 7 + 1, season, weekday == 6 ? 1 : 0,
          last_in_month ? 1 : 0, holiday ? 1 : 0, (weekday >= 1 && weekday <= 5) ? 1 : 0);
      w.end_row();
    }
    out.datekey.push_back(key);
    out.year.push_back(c.year);
    out.yearmonthnum.push_back(c.year * 100 + c.month);
    out.weeknuminyear.push_back(c.day_of_year / 7 + 1);
    out.yearmonth.push_back(std::move(ym));
  }
}

void generate_lineorder(Rng rng, const SsbRowCounts& n, LineorderColumns& lo, TblWriter& w) {
  uint64_t expected = n.orders * 4;
  for (auto* v : {&lo.orderdate, &lo.custkey, &lo.partkey, &lo.suppkey, &lo.quantity,
                  &lo.extendedprice, &lo.discount, &lo.revenue, &lo.supplycost})
    v->reserve(expected);
  struct Line {
    uint32_t part, supp, qty, ext, disc, rev, cost, tax, commit;
    const char* mode;
  };
  std::array<Line, 7> lines{};
  for (uint64_t o = 1; o <= n.orders; ++o) {
    uint32_t cust = rng.between(1, static_cast<uint32_t>(n.customer));
    uint32_t day = rng.between(0, kOrderDays - 1);
    CivilDate c = ssb_civil(day);
    uint32_t date = c.year * 10000 + c.month * 100 + c.day;
    const char* priority = rng.pick(kPriorities);
    uint32_t count = rng.between(1, 7);
    uint64_t total = 0;
    for (uint32_t l = 0; l < count; ++l) {
      Line& x = lines[l];
      x.part = rng.between(1, static_cast<uint32_t>(n.part));
      x.supp = rng.between(1, static_cast<uint32_t>(n.supplier));
      x.qty = rng.between(1, 50);
      x.disc = rng.between(0, 10);
      x.tax = rng.between(0, 8);
      uint32_t price = retail_price_cents(x.part);
      x.ext = x.qty * price;
      x.rev = static_cast<uint32_t>(uint64_t{x.ext} * (100 - x.disc) / 100);
      x.cost = price * 6 / 10;
      CivilDate cd = ssb_civil(day + rng.between(30, 90));
      x.commit = cd.year * 10000 + cd.month * 100 + cd.day;
      x.mode = rng.pick(kShipModes);
      total += uint64_t{x.ext} * (100 + x.tax) / 100 * (100 - x.disc) / 100;
    }
    for (uint32_t l = 0; l < count; ++l) {
      const Line& x = lines[l];
      if (w.active()) {
        fmt::format_to(std::back_inserter(w.row()),
                       "{}|{}|{}|{}|{}|{}|{}|0|{}|{}|{}|{}|{}|{}|{}|{}|{}|", o, l + 1, cust, x.part,
                       x.supp, date, priority, x.qty, x.ext, total, x.disc, x.rev, x.cost, x.tax,
                       x.commit, x.mode);
        w.end_row();
      }
      lo.orderdate.push_back(date);
      lo.custkey.push_back(cust);
      lo.partkey.push_back(x.part);
      lo.suppkey.push_back(x.supp);
      lo.quantity.push_back(x.qty);
      lo.extendedprice.push_back(x.ext);
      lo.discount.push_back(x.disc);
      lo.revenue.push_back(x.rev);
      lo.supplycost.push_back(x.cost);
    }
  }
}

}  // namespace

Result<SsbRowCounts> ssb_row_counts(double sf) {
  return detail::capture([&] {
    if (!std::isfinite(sf) || sf <= 0 || sf > 1000)
      throw Error(Errc::invalid_argument,
                  fmt::format("SSB scale factor {} must be in (0, 1000]", sf));
    auto scaled = [&](double base) {
      return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(base * sf)));
    };
    SsbRowCounts n{};
    n.customer = scaled(30000);
    n.supplier = scaled(2000);
    n.part =
        sf < 1 ? scaled(200000) : 200000 * static_cast<uint64_t>(std::floor(1 + std::log2(sf)));
    n.orders = scaled(1500000);
    n.date = kSsbDays;
    return n;
  });
}

Result<SsbTables> generate_ssb(double scale_factor, uint64_t seed, const std::string& out_dir) {
  return detail::capture([&] {
    SsbRowCounts n = ssb_row_counts(scale_factor).value();
    if (n.orders * 7 >= (uint64_t{1} << 32))
      throw Error(
          Errc::limit_exceeded,
          fmt::format("SSB scale factor {} gives more than 2^32 lineorder rows", scale_factor));
    std::filesystem::path dir(out_dir);
    if (!out_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) throw Error(Errc::io, fmt::format("cannot create {}: {}", out_dir, ec.message()));
    }
    auto writer = [&](const char* name) {
      return out_dir.empty() ? TblWriter() : TblWriter(dir / name);
    };
    SsbTables t;
    {
      TblWriter w = writer("customer.tbl");
      generate_party(Rng(seed * 8 + 1), n.customer, true, t.customer, w);
      w.close();
    }
    {
      TblWriter w = writer("supplier.tbl");
      generate_party(Rng(seed * 8 + 2), n.supplier, false, t.supplier, w);
      w.close();
    }
    {
      TblWriter w = writer("part.tbl");
      generate_part(Rng(seed * 8 + 3), n.part, t.part, w);
      w.close();
    }
    {
      TblWriter w = writer("date.tbl");
      generate_date(t.date, w);
      w.close();
    }
    {
      TblWriter w = writer("lineorder.tbl");
      generate_lineorder(Rng(seed * 8 + 4), n, t.lineorder, w);
      w.close();
    }
    return t;
  });
}

}  // namespace raydb::ssb
