#include "plugin/core/verify/multicast.h"

#include <algorithm>
#include <deque>

namespace ibu {

std::vector<int> TreeSwitches(const Tables& t, Lid mlid) {
  std::vector<int> out;
  for (size_t s = 0; s < t.mft.size(); ++s) {
    auto it = t.mft[s].groups.find(mlid);
    if (it != t.mft[s].groups.end() && it->second.any()) out.push_back(static_cast<int>(s));
  }
  return out;
}

McastReport VerifyMulticast(const Fabric& f, const Tables& t, const McastGroup& g,
                            size_t max_errors) {
  McastReport r;
  auto error = [&](const std::string& what) {
    ++r.error_count;
    if (r.errors.size() < max_errors) r.errors.push_back(what);
  };
  r.tree_switches = static_cast<int>(TreeSwitches(t, g.mlid).size());
  std::vector<char> is_member(f.end_ports.size(), 0);
  for (int m : g.members) is_member.at(m) = 1;
  std::vector<int> copies(f.end_ports.size());
  std::vector<int> visits(f.switches.size());
  const std::string group = "MLID 0x" + [&] {
    char b[8];
    snprintf(b, sizeof b, "%04x", g.mlid);
    return std::string(b);
  }();
  struct Hop {
    int sw, in_port, depth;
  };
  for (int sender : g.members) {
    ++r.senders_checked;
    std::fill(copies.begin(), copies.end(), 0);
    std::fill(visits.begin(), visits.end(), 0);
    const EndPort& src = f.end_ports[sender];
    std::deque<Hop> queue{{src.switch_index, src.switch_port, 1}};
    bool looped = false;
    while (!queue.empty() && !looped) {
      Hop h = queue.front();
      queue.pop_front();
      // A tree reaches a switch once per packet; more means a cycle.
      if (++visits[h.sw] > 1) {
        error(group + " from " + src.name + ": " + f.SwitchLabel(h.sw) +
              " receives the packet twice (the mask has a cycle)");
        looped = true;
        break;
      }
      r.depth = std::max(r.depth, h.depth);
      const PortMask* mask = nullptr;
      auto it = t.mft[h.sw].groups.find(g.mlid);
      if (it != t.mft[h.sw].groups.end()) mask = &it->second;
      if (!mask || mask->none()) {
        error(group + " from " + src.name + ": " + f.SwitchLabel(h.sw) +
              " has no MFT entry; the packet is dropped there");
        continue;
      }
      const Switch& sw = f.switches[h.sw];
      for (int p = 1; p <= sw.num_ports; ++p) {
        if (!mask->test(p) || p == h.in_port) continue;
        const Peer& peer = sw.ports[p];
        if (peer.is_end_port()) ++copies[peer.index];
        else if (peer.is_switch()) queue.push_back({peer.index, peer.port, h.depth + 1});
        else error(group + ": " + f.PortLabel(h.sw, p) + " is in the mask but not cabled");
      }
    }
    if (looped) continue;
    for (size_t e = 0; e < f.end_ports.size(); ++e) {
      const int want = is_member[e] && static_cast<int>(e) != sender ? 1 : 0;
      if (copies[e] == want) continue;
      error(group + " from " + f.end_ports[sender].name + ": " + f.end_ports[e].name +
            (is_member[e] ? " (member)" : " (not a member)") + " gets " +
            std::to_string(copies[e]) + " copies, expected " + std::to_string(want));
    }
  }
  return r;
}

}  // namespace ibu
