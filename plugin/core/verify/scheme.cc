#include "plugin/core/verify/scheme.h"

#include <utility>

#include "plugin/core/error.h"

namespace ibu {

namespace {

// Error lines listed per comparison; the rest are counted only.
constexpr long kListedLftMismatches = 20;
constexpr long kListedMftMismatches = 20;
constexpr long kListedSl2VlMismatches = 20;
constexpr long kListedPathMismatches = 10;

PortMask GroupMask(const Tables& t, size_t sw, Lid mlid) {
  if (sw >= t.mft.size()) return {};
  const auto it = t.mft[sw].groups.find(mlid);
  return it == t.mft[sw].groups.end() ? PortMask{} : it->second;
}

}  // namespace

std::string MaskPorts(const PortMask& mask) {
  std::string out;
  for (size_t p = 0; p < mask.size(); ++p)
    if (mask.test(p)) out += (out.empty() ? "" : " ") + std::to_string(p);
  return out.empty() ? "none" : out;
}

SchemeReference RouteScheme(const Fabric& f, const std::vector<McastGroup>& groups,
                            std::unique_ptr<Engine> engine) {
  SchemeReference r;
  r.engine = std::move(engine);
  RouteUnicastAndVls(*r.engine, f, r.want);
  for (const McastGroup& g : groups) {
    try {
      r.engine->RouteMulticast(f, g, r.want);
    } catch (const McastRefused& e) {  // bad input (no anchor=, say) ends the run, as in route
      r.refused.emplace(g.mlid, e.what());
    }
  }
  return r;
}

SchemeReport CompareLftsWithScheme(const Fabric& f, const Tables& t, const SchemeReference& ref) {
  const std::string engine = ref.engine->name();
  SchemeReport r;
  for (size_t s = 0; s < f.switches.size(); ++s)
    for (Lid lid = 1; lid <= f.max_lid(); ++lid) {
      if (!f.owner(lid).valid()) continue;
      const int have = t.lft[s].port(lid), expect = ref.want.lft[s].port(lid);
      if (have == expect) continue;
      if (++r.differ <= kListedLftMismatches)
        r.errors.push_back("scheme mismatch: " + f.SwitchLabel(static_cast<int>(s)) + ", LID " +
                           std::to_string(lid) + ": table says port " + std::to_string(have) + ", " + engine +
                           " says port " + std::to_string(expect));
    }
  return r;
}

SchemeReport CompareMftsWithScheme(const Fabric& f, const Tables& t, const std::vector<McastGroup>& groups,
                                   const SchemeReference& ref) {
  const std::string engine = ref.engine->name();
  SchemeReport r;
  for (const McastGroup& g : groups) {
    const std::string mlid = HexLid(g.mlid);
    if (const auto no_tree = ref.refused.find(g.mlid); no_tree != ref.refused.end()) {
      ++r.refused;
      r.errors.push_back("scheme mismatch: MLID " + mlid + ": " + engine + " builds no tree (" +
                         no_tree->second + ")");
    }
    for (size_t s = 0; s < f.switches.size(); ++s) {
      const PortMask have = GroupMask(t, s, g.mlid), expect = GroupMask(ref.want, s, g.mlid);
      if (have == expect) continue;
      if (++r.differ > kListedMftMismatches) continue;
      r.errors.push_back("scheme mismatch: " + f.SwitchLabel(static_cast<int>(s)) + ", MLID " + mlid +
                         ": table says ports " + MaskPorts(have) + ", " + engine + " says ports " +
                         MaskPorts(expect) + " (only in the table: " + MaskPorts(have & ~expect) +
                         "; only in " + engine + "'s: " + MaskPorts(expect & ~have) + ")");
    }
  }
  return r;
}

SchemeReport ComparePathMapWithScheme(const Fabric& f, const FatTree& tree, const PathMap& paths,
                                      const SchemeReference& ref) {
  const int ne = static_cast<int>(f.end_ports.size());
  SchemeReport r;
  for (int s = 0; s < ne; ++s)
    for (int d = 0; d < ne; ++d) {
      if (s == d) continue;
      ++r.compared;
      const Lid got = paths.Select(s, d), want = ref.engine->SelectDlid(f, s, d);
      if (got == want) continue;
      if (r.differ++ < kListedPathMismatches)
        r.errors.push_back("path map: " + tree.HostLabel(s) + " -> " + tree.HostLabel(d) + " uses DLID " +
                           std::to_string(got) + ", " + ref.engine->name() + " selects " +
                           std::to_string(want));
    }
  return r;
}

SchemeReport CompareSl2VlWithScheme(const Fabric& f, const Tables& t, const SchemeReference& ref) {
  const std::string engine = ref.engine->name();
  const Tables& want = ref.want;
  SchemeReport r;
  auto report = [&](const std::string& where, int sl, int have, int expect) {
    if (++r.differ <= kListedSl2VlMismatches)
      r.errors.push_back("SL2VL mismatch: " + where + " SL " + std::to_string(sl) + ": table says VL " +
                         std::to_string(have) + ", " + engine + " says VL " + std::to_string(expect));
  };
  for (size_t s = 0; s < f.switches.size(); ++s) {
    const Switch& sw = f.switches[s];
    if (want.sl2vl.size() <= s || want.sl2vl[s].empty()) continue;
    if (t.sl2vl.size() <= s || t.sl2vl[s].empty()) {
      report(f.SwitchLabel(static_cast<int>(s)) + " (no table read back)", 0, -1, 0);
      continue;
    }
    for (int out = 1; out <= sw.num_ports; ++out) {
      if (!sw.ports[out].connected()) continue;
      for (int in = 0; in <= sw.num_ports; ++in)
        for (int sl = 0; sl < 16; ++sl, ++r.compared) {
          const int have = t.sl2vl[s].get(in, out, sl), expect = want.sl2vl[s].get(in, out, sl);
          if (have != expect)
            report(f.SwitchLabel(static_cast<int>(s)) + " in " + std::to_string(in) + " out " +
                       std::to_string(out),
                   sl, have, expect);
        }
    }
  }
  for (size_t e = 0; e < f.end_ports.size(); ++e) {
    if (f.end_ports[e].switch_index < 0) continue;
    const auto expect = EndPortVls(f, want, static_cast<int>(e));
    const auto it = t.end_port_sl2vl.find(static_cast<int>(e));
    for (int sl = 0; sl < 16; ++sl, ++r.compared) {
      const int have = it == t.end_port_sl2vl.end() ? -1 : it->second[sl];
      if (have != expect[sl]) report("host " + f.end_ports[e].name, sl, have, expect[sl]);
    }
  }
  return r;
}

}  // namespace ibu
