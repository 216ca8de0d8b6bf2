#include "plugin/core/verify/unicast.h"

#include <algorithm>
#include <queue>
#include <sstream>

#include "plugin/core/verify/paths.h"

namespace ibu {

namespace {

int Diameter(const Fabric& f) {
  const int ns = static_cast<int>(f.switches.size());
  int diameter = 0;
  std::vector<int> dist(ns);
  std::queue<int> q;
  for (int src = 0; src < ns; ++src) {
    std::fill(dist.begin(), dist.end(), -1);
    dist[src] = 0;
    q.push(src);
    while (!q.empty()) {
      int s = q.front();
      q.pop();
      diameter = std::max(diameter, dist[s]);
      for (const Peer& p : f.switches[s].ports)
        if (p.is_switch() && dist[p.index] < 0) {
          dist[p.index] = dist[s] + 1;
          q.push(p.index);
        }
    }
  }
  return diameter;
}

// Per-LID walk state of a switch.
enum : int { kUnknown = -1, kInProgress = -2, kBroken = -3 };

class LidWalker {
 public:
  LidWalker(const Fabric& f, const Tables& t, UnicastReport& r, size_t max_errors)
      : f_(f), t_(t), r_(r), max_errors_(max_errors), hops_(f.switches.size()) {}

  // Links to the owner of `lid` from every switch an end port's route
  // passes, or kBroken; with `every_switch`, from every switch. Switches
  // send to end ports too (responses to LID-routed GMPs such as perfquery's,
  // traps to the SM), so their entries for end-port LIDs must deliver even
  // where no host's route passes. Other entries are not checked: engines
  // may leave them empty (OpenSM's ftree does for switch LIDs).
  // `unrouted_ok`: an entry without a route ends the walk without an error
  // (--host-lids: degraded trees leave switch LIDs a valley would reach
  // unrouted); a loop or a wrong delivery is still one.
  void Walk(Lid lid, const std::vector<long>& sources, bool every_switch, bool unrouted_ok = false) {
    lid_ = lid;
    unrouted_ok_ = unrouted_ok;
    std::fill(hops_.begin(), hops_.end(), kUnknown);
    for (size_t s = 0; s < f_.switches.size(); ++s)
      if (every_switch || sources[s] > 0) Resolve(static_cast<int>(s));
  }
  int hops(int sw) const { return hops_[sw]; }
  int next(int sw) const { return t_.lft[sw].port(lid_); }

 private:
  void Error(const std::string& what) {
    ++r_.error_count;
    if (r_.errors.size() < max_errors_) r_.errors.push_back(what);
  }

  std::string Where(int sw) const {
    return f_.SwitchLabel(sw) + ", LID " + std::to_string(lid_);
  }

  // The switches of the loop `chain` closed at `again`, in route order
  // ("A -> B -> A"; the first 8): where to look, not just where the walk
  // noticed it.
  std::string LoopOf(const std::vector<int>& chain, int again) const {
    const auto from = std::find(chain.begin(), chain.end(), again);
    std::string out;
    int shown = 0;
    for (auto it = from; it != chain.end(); ++it) {
      if (shown++ == 8) {
        out += " -> ...";
        break;
      }
      out += (it == from ? "" : " -> ") + f_.switches[*it].name;  // descriptions: the labels are long
    }
    return out + " -> " + f_.switches[again].name;
  }

  // Why a route ends at switch `s` with `step` short of the LID's owner.
  void ReportBrokenEnd(int s, const LftStep& step) {
    switch (step.kind) {
      case LftStep::Kind::kNoEntry:
        if (!unrouted_ok_) Error("black hole: " + Where(s) + " has no out port");
        return;
      case LftStep::Kind::kPortZero:
        Error("wrong destination: " + Where(s) + " delivers to its own management port");
        return;
      case LftStep::Kind::kEndPort:
        Error("wrong destination: " + Where(s) + " port " + std::to_string(step.port) +
              " leads to end port " + f_.end_ports[step.next].name + ", which does not own the LID");
        return;
      default:
        Error("black hole: " + Where(s) + " points to port " + std::to_string(step.port) +
              ", which is not cabled");
        return;
    }
  }

  // Iterative: follow the LFT until a resolved switch, then unwind.
  void Resolve(int start) {
    if (hops_[start] != kUnknown) return;
    std::vector<int> chain;
    int s = start;
    int result = kBroken;
    while (true) {
      if (hops_[s] == kInProgress) {
        Error("loop: " + Where(s) + " is reached again by its own route (" + LoopOf(chain, s) + ")");
        break;
      }
      if (hops_[s] != kUnknown) {
        result = hops_[s] < 0 ? kBroken : hops_[s] + 1;
        break;
      }
      hops_[s] = kInProgress;
      chain.push_back(s);
      const LftStep step = StepOf(f_, t_, s, lid_);
      if (step.kind == LftStep::Kind::kSwitch) {
        s = step.next;
        continue;
      }
      if (EndsAtOwner(f_, s, step, lid_)) {
        result = 0;
      } else {
        ReportBrokenEnd(s, step);
      }
      break;
    }
    // Unwind: the last switch of the chain gets `result`, each earlier one
    // is one link farther.
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      hops_[*it] = result;
      if (result >= 0 && it + 1 != chain.rend()) ++result;
    }
  }

  const Fabric& f_;
  const Tables& t_;
  UnicastReport& r_;
  size_t max_errors_;
  std::vector<int> hops_;
  Lid lid_ = 0;
  bool unrouted_ok_ = false;
};

}  // namespace

UnicastReport VerifyUnicast(const Fabric& f, const Tables& t, size_t max_errors, bool switch_lids) {
  UnicastReport r;
  r.diameter = Diameter(f);
  if (t.lft.size() != f.switches.size()) {
    r.error_count = 1;
    r.errors.push_back("tables cover " + std::to_string(t.lft.size()) + " switches, fabric has " +
                       std::to_string(f.switches.size()));
    return r;
  }
  // Sources per switch, for counting routes per link.
  std::vector<long> sources(f.switches.size(), 0);
  for (const EndPort& ep : f.end_ports) ++sources[ep.switch_index];
  std::vector<long> flow(f.switches.size());
  std::vector<std::vector<int>> by_hops;
  // Counted in flat arrays, moved into the report's maps at the end: a map
  // update per (LID, switch) was a fifth of plain verify's time on FT(16,3).
  std::vector<long> hops_count;
  std::vector<size_t> port_base(f.switches.size() + 1, 0);
  for (size_t s = 0; s < f.switches.size(); ++s)
    port_base[s + 1] = port_base[s] + static_cast<size_t>(f.switches[s].num_ports) + 1;
  std::vector<long> port_routes(port_base.back(), 0);
  LidWalker walker(f, t, r, max_errors);
  for (Lid lid = 1; lid <= f.max_lid(); ++lid) {
    LidOwner owner = f.owner(lid);
    if (!owner.valid()) continue;
    const bool to_end_port = owner.kind == Peer::Kind::kEndPort;
    if (!switch_lids && !to_end_port) {
      // --host-lids: a switch LID may be left unrouted, but an entry that
      // loops or delivers elsewhere is wrong (it was not walked at all, so
      // such tables passed). Checked, not counted with the host LIDs' routes.
      walker.Walk(lid, sources, /*every_switch=*/false, /*unrouted_ok=*/true);
      continue;
    }
    walker.Walk(lid, sources, /*every_switch=*/to_end_port && switch_lids);
    ++r.lids_checked;
    by_hops.assign(1, {});
    for (size_t s = 0; s < f.switches.size(); ++s) {
      const int h = walker.hops(static_cast<int>(s));
      long src = sources[s];
      if (to_end_port && static_cast<int>(s) == f.end_ports[owner.index].switch_index)
        --src;  // the owner does not route to itself
      r.routes_checked += src;
      flow[s] = 0;
      if (h < 0) continue;  // broken (already reported) or on no route
      if (static_cast<int>(by_hops.size()) <= h) by_hops.resize(h + 1);
      by_hops[h].push_back(static_cast<int>(s));
      if (src == 0) continue;
      if (h > r.diameter) {
        ++r.error_count;
        if (r.errors.size() < max_errors)
          r.errors.push_back("too long: " + f.SwitchLabel(static_cast<int>(s)) + ", LID " +
                             std::to_string(lid) + ": " + std::to_string(h) +
                             " links, the diameter is " + std::to_string(r.diameter));
      }
      if (hops_count.size() <= static_cast<size_t>(h)) hops_count.resize(h + 1, 0);
      hops_count[h] += src;
      flow[s] = src;
    }
    if (!to_end_port) continue;
    // Push flows toward the destination, farthest switches first.
    for (int h = static_cast<int>(by_hops.size()) - 1; h >= 0; --h)
      for (int s : by_hops[h]) {
        if (flow[s] == 0) continue;
        const int port = walker.next(s);
        port_routes[port_base[s] + port] += flow[s];
        const Peer& peer = f.switches[s].ports[port];
        if (peer.is_switch()) flow[peer.index] += flow[s];
      }
  }
  for (size_t h = 0; h < hops_count.size(); ++h)
    if (hops_count[h]) r.hops_histogram[static_cast<int>(h)] = hops_count[h];
  for (size_t s = 0; s < f.switches.size(); ++s)
    for (size_t port = 0; port < port_base[s + 1] - port_base[s]; ++port)
      if (port_routes[port_base[s] + port])
        r.link_routes[{static_cast<int>(s), static_cast<int>(port)}] = port_routes[port_base[s] + port];
  return r;
}

std::string UnicastReport::Summary(const Fabric& f) const {
  std::ostringstream os;
  os << "unicast: " << routes_checked << " routes from " << f.end_ports.size() << " end ports to "
     << lids_checked << " LIDs checked; " << error_count << " errors\n";
  os << "path length (switch-to-switch links -> routes):";
  for (const auto& [h, c] : hops_histogram) os << " " << h << ":" << c;
  os << "  (diameter " << diameter << ")\n";
  long max_load = 0, total = 0;
  for (const auto& [link, c] : link_routes) {
    max_load = std::max(max_load, c);
    total += c;
  }
  if (!link_routes.empty())
    os << "routes per used switch port: max " << max_load << ", mean "
       << total / static_cast<long>(link_routes.size()) << " over " << link_routes.size()
       << " ports\n";
  for (const std::string& e : errors) os << "error: " << e << "\n";
  if (error_count > static_cast<long>(errors.size()))
    os << "error: ... and " << error_count - static_cast<long>(errors.size()) << " more\n";
  return os.str();
}

}  // namespace ibu
