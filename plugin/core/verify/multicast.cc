#include "plugin/core/verify/multicast.h"

#include <algorithm>
#include <deque>

namespace ibu {

namespace {

const PortMask* MaskOf(const Tables& t, int sw, Lid mlid) {
  auto it = t.mft[sw].groups.find(mlid);
  return it == t.mft[sw].groups.end() ? nullptr : &it->second;
}

bool InMask(const Tables& t, int sw, Lid mlid, int port) {
  const PortMask* mask = MaskOf(t, sw, mlid);
  return mask && mask->test(port);
}

// Where end port `e`'s copy should have come from and did not (`reached`:
// switches the packet got to). Tree links are in the masks of both their
// switches, so the copy was lost on the first link from a reached switch
// into the unreached part of the tree around e's switch, on the reached side.
std::string WhereLost(const Fabric& f, const Tables& t, Lid mlid, int e, const std::vector<int>& reached) {
  const EndPort& ep = f.end_ports[e];
  if (ep.switch_index < 0) return "it is not cabled to a switch";
  if (reached[ep.switch_index])
    return "lost at " + f.PortLabel(ep.switch_index, ep.switch_port) + " (not in the mask)";
  std::vector<char> seen(f.switches.size(), 0);
  std::deque<int> queue{ep.switch_index};
  seen[ep.switch_index] = 1;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (int p = 1; p <= f.switches[u].num_ports; ++p) {
      const Peer& peer = f.switches[u].ports[p];
      if (!peer.is_switch() || !InMask(t, u, mlid, p)) continue;
      if (reached[peer.index])
        return "lost at " + f.PortLabel(peer.index, peer.port) + " (not in the mask, toward " +
               f.switches[u].name + ")";
      if (!seen[peer.index]) seen[peer.index] = 1, queue.push_back(peer.index);
    }
  }
  return "lost before its " + f.SwitchLabel(ep.switch_index) +
         " (no switch the packet reaches has a tree link toward it)";
}

}  // namespace

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
  const std::vector<int> tree = TreeSwitches(t, g.mlid);
  r.tree_switches = static_cast<int>(tree.size());
  // The group's mask per switch, looked up once: the floods below take
  // members x tree steps, and a map lookup in each (a switch holds every
  // group's mask) made those 1000 groups of 256 take 182 s.
  std::vector<const PortMask*> mask_of(f.switches.size(), nullptr);
  for (int sw : tree) mask_of[sw] = MaskOf(t, sw, g.mlid);
  std::vector<char> is_member(f.end_ports.size(), 0);
  for (int m : g.members) is_member.at(m) = 1;
  // Per sender; only the entries a flood touched are reset, so a sender
  // costs O(its tree + members), not O(end ports + switches) (small groups
  // on a large fabric). Cost: members x (tree + members) per group, which
  // grows as the square of the group: the 4096 senders of an all-hosts
  // group on a 64x64 mesh flood its 4096-switch tree each (0.3 s), and 1000
  // groups of 256 there take 16 s (19 s with reading the tables).
  std::vector<int> copies(f.end_ports.size(), 0);
  std::vector<int> visits(f.switches.size(), 0);
  std::vector<int> got_copies, visited, wrong;
  const std::string group = "MLID " + HexLid(g.mlid);
  // Port 0 in a switch's mask hands a copy to the switch itself (its
  // management port): right only for a switch member (its port 0 joined).
  std::vector<char> is_switch_member(f.switches.size(), 0);
  for (int sw : g.switch_members) is_switch_member.at(sw) = 1;
  for (int sw : tree)
    if (mask_of[sw]->test(0) && !is_switch_member[sw])
      error(
          group + ": " + f.SwitchLabel(sw) +
          " port 0 is in the mask: the switch itself gets a copy of every packet that reaches it, but it is "
          "not a member (its port 0 did not join)");
  // A bit for a port without a cable is the mask's fault whoever sends:
  // named once (it was once per sender reaching the switch, alike).
  for (int sw : tree) {
    const Switch& s = f.switches[sw];
    for (int p = 1; p <= s.num_ports; ++p)
      if (mask_of[sw]->test(p) && !s.ports[p].connected())
        error(group + ": " + f.PortLabel(sw, p) + " is in the mask but not cabled");
  }
  struct Hop {
    int sw, in_port, depth;
  };
  // Senders: the end-port members, then the switch members from their
  // port 0 (-1 - switch index).
  std::vector<int> senders(g.members);
  for (int sw : g.switch_members) senders.push_back(-1 - sw);
  for (int sender : senders) {
    ++r.senders_checked;
    for (int e : got_copies) copies[e] = 0;
    for (int sw : visited) visits[sw] = 0;
    got_copies.clear();
    visited.clear();
    const int from_switch = sender < 0 ? -1 - sender : -1;
    const std::string src_name =
        from_switch >= 0 ? f.switches[from_switch].name + " (port 0)" : f.end_ports[sender].name;
    const Hop start = from_switch >= 0
                          ? Hop{from_switch, 0, 1}
                          : Hop{f.end_ports[sender].switch_index, f.end_ports[sender].switch_port, 1};
    std::deque<Hop> queue{start};
    bool looped = false;
    while (!queue.empty() && !looped) {
      Hop h = queue.front();
      queue.pop_front();
      // A tree reaches a switch once per packet; more means a cycle.
      if (visits[h.sw] == 0) visited.push_back(h.sw);
      if (++visits[h.sw] > 1) {
        error(group + " from " + src_name + ": " + f.SwitchLabel(h.sw) +
              " receives the packet twice (the mask has a cycle), the second time on port " +
              std::to_string(h.in_port));
        looped = true;
        break;
      }
      r.depth = std::max(r.depth, h.depth);
      const PortMask* mask = mask_of[h.sw];
      if (!mask) {  // no entry, or an empty mask (not in `tree`)
        // Name the mask bit that sent it here: the fix is usually to clear
        // that bit, not to add an entry where the packet was dropped.
        const Peer& from = f.switches[h.sw].ports[h.in_port];
        const std::string sent_by =
            from.is_switch() ? " (sent there by " + f.PortLabel(from.index, from.port) + ", set in its mask)"
                             : " (the sender's own switch)";
        error(group + " from " + src_name + ": " + f.SwitchLabel(h.sw) + " has no MFT entry" + sent_by +
              "; the packet is dropped there");
        continue;
      }
      const Switch& sw = f.switches[h.sw];
      for (int p = 1; p <= sw.num_ports; ++p) {
        if (!mask->test(p) || p == h.in_port) continue;
        const Peer& peer = sw.ports[p];
        if (peer.is_end_port()) {
          if (copies[peer.index]++ == 0) got_copies.push_back(peer.index);
        } else if (peer.is_switch())
          queue.push_back({peer.index, peer.port, h.depth + 1});
      }
    }
    if (looped) continue;
    // A switch member's copy: its port 0 in the mask of a switch the packet
    // reached (at most once: a second visit stopped the walk above).
    for (int sw : g.switch_members) {
      if (sw == from_switch) continue;
      if (visits[sw] && mask_of[sw] && mask_of[sw]->test(0)) continue;
      error(group + " from " + src_name + ": " + f.SwitchLabel(sw) +
            " (member, port 0) gets 0 copies, expected 1: " +
            (visits[sw] ? "port 0 is not in its mask" : "the packet does not reach it"));
    }
    // Each end port hangs off one switch port and a switch reached twice
    // stops the walk above, so a copy too many comes from that one port.
    // Only members and end ports that got a copy can be wrong; named in
    // end-port order.
    wrong.clear();
    auto want_of = [&](int e) { return is_member[e] && e != sender ? 1 : 0; };  // sender < 0: a switch
    for (int e : g.members)
      if (copies[e] != want_of(e)) wrong.push_back(e);
    for (int e : got_copies)
      if (!is_member[e] && copies[e] != want_of(e)) wrong.push_back(e);
    std::sort(wrong.begin(), wrong.end());
    wrong.erase(std::unique(wrong.begin(), wrong.end()), wrong.end());
    for (int e : wrong) {
      const int want = want_of(e);
      const EndPort& ep = f.end_ports[e];
      std::string where;  // found only for errors that are kept: the search is not free
      if (r.errors.size() < max_errors)
        where = copies[e] > want ? f.PortLabel(ep.switch_index, ep.switch_port) + " forwards it (in the mask)"
                                 : WhereLost(f, t, g.mlid, e, visits);
      error(group + " from " + src_name + ": " + ep.name + (is_member[e] ? " (member)" : " (not a member)") +
            " gets " + std::to_string(copies[e]) + (copies[e] == 1 ? " copy" : " copies") + ", expected " +
            std::to_string(want) + ": " + where);
    }
  }
  return r;
}

}  // namespace ibu
