#include "sim-harness/timing/dump_dir.h"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "plugin/core/error.h"

namespace ibu::sim {

namespace {

constexpr const char* kPathSlFile = "path-sl.dump";  // as read-path-sl names it

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The SLs messages can carry: the SA's path SLs (and SL 0, a group's
// default, for multicast), else those of the SL policy.
std::vector<int> PossibleSls(const Params& p, const DumpedPathSls* path_sls, std::string* policy) {
  if (UsesDumpedPathSls(p, path_sls)) {
    std::vector<int> used = path_sls->sls.Used();
    *policy = path_sls->file + " gives paths SLs " + std::to_string(used.front()) + ".." +
              std::to_string(used.back()) + ", groups SL 0";
    if (!Contains(used, 0)) used.insert(used.begin(), 0);
    return used;
  }
  if (p.sl == SlPolicy::kFixed) {
    *policy = "sl=" + std::to_string(p.sl_value) + " sends on that SL";
    return {p.sl_value};
  }
  *policy = std::string(p.sl == SlPolicy::kRandom ? "sl=random" : "sl=hash") + " sends on every SL 0..15";
  std::vector<int> all(16);
  for (int sl = 0; sl < 16; ++sl) all[size_t(sl)] = sl;
  return all;
}

// The first entry a message could use whose VL is beyond p.vls.
struct BadEntry {
  std::string where;
  int sl = -1, vl = -1, max_vl = -1;
};

void Note(BadEntry* bad, const std::string& where, int sl, int vl) {
  if (bad->sl < 0) *bad = {where, sl, vl, vl};
  bad->max_vl = std::max(bad->max_vl, vl);
}

}  // namespace

bool UsesDumpedPathSls(const Params& p, const DumpedPathSls* path_sls) {
  return TakesPathSls(p.sl, path_sls != nullptr, /*sls_pick_vls=*/true);
}

void ReadDumpedSl2Vl(const std::string& path, const Fabric& f, const Params& p, const DumpedPathSls* path_sls,
                     Tables& t) {
  ReadSl2VlFile(path, f, t);
  std::string policy;
  const std::vector<int> sls = PossibleSls(p, path_sls, &policy);
  BadEntry bad;
  // Entries no message can use (an SL outside the policy, out port 0: the
  // switch itself) are set to VL 0, so the model's tables hold only VLs it
  // has; every other entry must be one of them.
  for (size_t s = 0; s < f.switches.size(); ++s) {
    Sl2Vl& table = t.sl2vl[s];
    const std::string label = f.SwitchLabel(int(s));
    for (int in = 0; in <= table.num_ports; ++in)
      for (int out = 0; out <= table.num_ports; ++out)
        for (int sl = 0; sl < 16; ++sl) {
          if (out == 0 || !Contains(sls, sl)) table.set(in, out, sl, 0);
          else if (table.get(in, out, sl) >= p.vls)
            Note(&bad, label + " (in " + std::to_string(in) + ", out " + std::to_string(out) + ")", sl,
                 table.get(in, out, sl));
        }
  }
  for (auto& [ep, vls] : t.end_port_sl2vl)
    for (int sl = 0; sl < 16; ++sl) {
      if (!Contains(sls, sl)) vls[size_t(sl)] = 0;
      else if (vls[size_t(sl)] >= p.vls) Note(&bad, "end port " + f.end_ports[size_t(ep)].name, sl, vls[size_t(sl)]);
    }
  if (bad.sl >= 0)
    throw Error(path + ": " + bad.where + " maps SL " + std::to_string(bad.sl) + " onto VL " +
                std::to_string(bad.vl) + ", beyond VL " + std::to_string(p.vls - 1) + " of --vls " +
                std::to_string(p.vls) + " (" + policy + "; a real port drops such packets): give --param sl=N with an SL these tables map below VL " +
                std::to_string(p.vls) +
                (bad.max_vl < 8 ? " or --vls " + std::to_string(bad.max_vl + 1) + " or more"
                                : std::string(" (they use VLs up to ") + std::to_string(bad.max_vl) +
                                      ", the model has at most 8)"));
}

namespace {

// DIR's ibunion-<engine>-paths.dump files, sorted.
std::vector<std::string> PathMapFilesIn(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const std::string prefix = kDumpPrefix, suffix = kPathsDumpSuffix;  // as the plugin names it
    if (name.size() > prefix.size() + suffix.size() && name.rfind(prefix, 0) == 0 &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      found.push_back(e.path().string());
  }
  if (ec) throw Error(dir + ": cannot list (" + ec.message() + ")");
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

std::vector<std::string> DumpInputFiles(const std::string& dir) {
  std::vector<std::string> files;
  // A missing DIR is for the reading to name (DIR/fabric.net), not this check.
  std::error_code is_dir_error;
  if (!std::filesystem::is_directory(dir, is_dir_error)) return files;
  // engine is read too: the replay's note names the routing by it.
  for (const char* name : {"fabric.net", "lfts.dump", "mfts.dump", "sl2vl.dump", "engine", kPathSlFile}) {
    std::error_code ec;
    if (std::filesystem::exists(dir + "/" + name, ec)) files.push_back(dir + "/" + name);
  }
  for (std::string& map : PathMapFilesIn(dir)) files.push_back(std::move(map));
  return files;
}

std::shared_ptr<const DumpedPathSls> ReadDumpedPathSls(const std::string& dir, const Fabric& f) {
  const std::string path = dir + "/" + kPathSlFile;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return nullptr;
  return std::make_shared<const DumpedPathSls>(DumpedPathSls{path, ReadPathSlsFile(path, f)});
}

std::shared_ptr<const DumpedPathMap> ReadDumpedPathMap(const std::string& dir, const Fabric& f) {
  const std::vector<std::string> found = PathMapFilesIn(dir);
  if (found.empty()) return nullptr;
  if (found.size() > 1)
    throw Error(dir + ": path-selection maps of several engines (" + found[0] + ", " + found[1] +
                "): keep the one of the engine that made lfts.dump");
  PathMap map = ReadPathMapFile(found[0], f);
  RequireEveryPair(map, f, found[0], "without the file, sources use base LIDs");
  return std::make_shared<const DumpedPathMap>(DumpedPathMap{found[0], std::move(map)});
}

}  // namespace ibu::sim
