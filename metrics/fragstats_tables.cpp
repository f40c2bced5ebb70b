#include "fragstats_tables.h"

#include <charconv>
#include <fstream>

#include "error.h"

namespace lsm {

std::string format_value(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

void write_patch_csv(std::ostream& out, const PatchTable& table) {
  out << "PID,TYPE,AREA,PERIM\n";
  for (size_t i = 0; i < table.patches.size(); ++i) {
    const PatchStats& p = table.patches[i];
    out << (i + 1) << ',' << p.class_code << ',' << format_value(patch_area_ha(p, table.raster)) << ','
        << format_value(patch_perim_m(p, table.raster)) << '\n';
  }
}

void write_class_csv(std::ostream& out, const AreaEdgeMetrics& m) {
  out << "TYPE,CA,PLAND,NP,PD,LPI,TE,ED,AREA_MN\n";
  for (const ClassAreaEdge& c : m.classes)
    out << c.type << ',' << format_value(c.ca) << ',' << format_value(c.pland) << ',' << c.np << ','
        << format_value(c.pd) << ',' << format_value(c.lpi) << ',' << format_value(c.te) << ','
        << format_value(c.ed) << ',' << format_value(c.area_mn) << '\n';
}

void write_land_csv(std::ostream& out, const AreaEdgeMetrics& m) {
  const LandscapeAreaEdge& l = m.landscape;
  out << "TA,NP,PD,LPI,TE,ED,AREA_MN\n"
      << format_value(l.ta) << ',' << l.np << ',' << format_value(l.pd) << ',' << format_value(l.lpi) << ','
      << format_value(l.te) << ',' << format_value(l.ed) << ',' << format_value(l.area_mn) << '\n';
}

FragstatsTableFiles::FragstatsTableFiles(const std::string& prefix)
    : patch_(prefix + ".patch.csv"), class_(prefix + ".class.csv"), land_(prefix + ".land.csv") {}

void FragstatsTableFiles::write(const PatchTable& table, const AreaEdgeMetrics& m) {
  auto write_one = [](AtomicOutput& file, auto&& body) {
    std::ofstream out(file.temp_path(), std::ios::binary | std::ios::trunc);
    body(out);
    out.close();
    if (!out) throw Error(ErrorKind::Io, "cannot write '" + file.final_path() + "'");
  };
  write_one(patch_, [&](std::ostream& o) { write_patch_csv(o, table); });
  write_one(class_, [&](std::ostream& o) { write_class_csv(o, m); });
  write_one(land_, [&](std::ostream& o) { write_land_csv(o, m); });
  patch_.commit();
  class_.commit();
  land_.commit();
}

}  // namespace lsm
