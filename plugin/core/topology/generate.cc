#include "plugin/core/topology/generate.h"

#include <cinttypes>
#include <cstdio>
#include <ostream>
#include <random>

#include "plugin/core/error.h"
#include "plugin/core/int_math.h"
#include "plugin/core/topology/fattree.h"

namespace ibu {

namespace {

constexpr Guid kHostGuidBase = 0x100000;
constexpr Guid kSwitchGuidBase = 0x200000;

int AddSwitch(Fabric& f, const std::string& name, int ports) {
  Switch sw;
  sw.guid = kSwitchGuidBase + f.switches.size();
  sw.name = name;
  sw.num_ports = ports;
  sw.ports.resize(ports + 1);
  f.switches.push_back(std::move(sw));
  return static_cast<int>(f.switches.size() - 1);
}

int AddHost(Fabric& f, const std::string& name) {
  EndPort ep;
  ep.node_guid = kHostGuidBase + 2 * f.end_ports.size();
  ep.port_guid = ep.node_guid + 1;
  ep.port_num = 1;
  ep.name = name;
  f.end_ports.push_back(std::move(ep));
  return static_cast<int>(f.end_ports.size() - 1);
}

uint64_t Below(std::mt19937_64& rng, uint64_t n) { return rng() % n; }

}  // namespace

Fabric MakeFatTree(int m, int n) {
  if (m < 4) throw Error("fattree: M must be at least 4, got " + std::to_string(m));
  if (m % 2) throw Error("fattree: M must be even (m/2 ports down, m/2 up), got " + std::to_string(m));
  if (m > kMaxSwitchPorts) throw Error("fattree: M must be at most 254 ports, got " + std::to_string(m));
  if (n < 1) throw Error("fattree: N must be at least 1, got " + std::to_string(n));
  const int k = m / 2;
  const std::string beyond = FatTreeBeyondLids(k, n);
  if (!beyond.empty()) throw Error("fattree: " + beyond);
  const long hosts = 2 * IntPow(k, n);
  const long per_level = n == 1 ? 1 : 2 * IntPow(k, n - 1);
  const long top = n == 1 ? 1 : IntPow(k, n - 1);
  if (hosts + top + per_level * (n - 1) > kMaxUnicastLid)
    throw Error("fattree: FT(" + std::to_string(m) + "," + std::to_string(n) + ") has " +
                std::to_string(hosts) + " hosts and " + std::to_string(top + per_level * (n - 1)) +
                " switches, one LID each; together they exceed the unicast LID space (0xBFFF)");
  Fabric f;
  const int wlen = n - 1;
  for (long i = 0; i < hosts; ++i) {
    AddHost(f, HostLabelText(LabelDigits(i, n, m, k), m));
  }
  // Switch index of SW<w,l>: levels stored one after another.
  auto level_base = [&](int l) { return l == 0 ? 0L : top + (l - 1) * per_level; };
  for (int l = 0; l < n; ++l) {
    const long count = l == 0 ? top : per_level;
    for (long i = 0; i < count; ++i) {
      AddSwitch(f, SwitchLabelText(LabelDigits(i, wlen, l == 0 ? k : m, k), l, m), m);
    }
  }
  for (int l = 0; l + 1 < n; ++l) {
    const long count = l == 0 ? top : per_level;
    for (long i = 0; i < count; ++i) {
      std::vector<int> w = LabelDigits(i, wlen, l == 0 ? k : m, k);
      const int children = l == 0 ? m : k;
      for (int x = 0; x < children; ++x) {
        // Lower w' = w_0..w_{l-1}, x, w_l..w_{n-3}.
        std::vector<int> lower(w.begin(), w.begin() + l);
        lower.push_back(x);
        lower.insert(lower.end(), w.begin() + l, w.end() - 1);
        const int up = static_cast<int>(level_base(l) + i);
        const int down = static_cast<int>(level_base(l + 1) + LabelIndex(lower, m, k));
        ConnectSwitches(f, up, x + 1, down, w[wlen - 1] + k + 1);
      }
    }
  }
  const long leaves_base = level_base(n - 1);
  const int hosts_per_leaf = n == 1 ? m : k;
  for (long h = 0; h < hosts; ++h)
    ConnectEndPort(f, static_cast<int>(h), static_cast<int>(leaves_base + h / hosts_per_leaf),
                   static_cast<int>(h % hosts_per_leaf) + 1);
  f.Finalize();
  return f;
}

Fabric MakeMesh(int x, int y) {
  if (x < 1 || y < 1 || x * y < 2)
    throw Error("mesh: X and Y must be at least 1 and X*Y at least 2, got " +
                std::to_string(x) + "x" + std::to_string(y));
  if (2L * x * y > kMaxUnicastLid)
    throw Error("mesh: " + std::to_string(x) + "x" + std::to_string(y) +
                " exceeds the unicast LID space (0xBFFF): " + std::to_string(x * y) +
                " switches and as many hosts need " + std::to_string(2L * x * y) + " LIDs, " +
                std::to_string(kMaxUnicastLid) + " exist (X*Y at most " + std::to_string(kMaxUnicastLid / 2) +
                ", e.g. 156x156)");
  Fabric f;
  auto label = [](int i, int j) { return "(" + std::to_string(i) + "," + std::to_string(j) + ")"; };
  for (int i = 0; i < x; ++i)
    for (int j = 0; j < y; ++j) AddHost(f, "H" + label(i, j));
  for (int i = 0; i < x; ++i)
    for (int j = 0; j < y; ++j) AddSwitch(f, "N" + label(i, j), 5);
  auto at = [&](int i, int j) { return i * y + j; };
  for (int i = 0; i < x; ++i)
    for (int j = 0; j < y; ++j) {
      if (i + 1 < x) ConnectSwitches(f, at(i, j), 1, at(i + 1, j), 3);
      if (j + 1 < y) ConnectSwitches(f, at(i, j), 2, at(i, j + 1), 4);
      ConnectEndPort(f, at(i, j), at(i, j), 5);
    }
  f.Finalize();
  return f;
}

std::vector<int> ShufflePorts(Fabric& f, uint64_t seed, std::vector<std::vector<int>>* new_port) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<int>> perm(f.switches.size());
  for (size_t s = 0; s < f.switches.size(); ++s) {
    std::vector<int>& p = perm[s];
    const int np = f.switches[s].num_ports;
    for (int i = 0; i <= np; ++i) p.push_back(i);
    for (int i = np; i > 1; --i) std::swap(p[i], p[1 + Below(rng, i)]);
  }
  std::vector<std::vector<Peer>> ports(f.switches.size());
  for (size_t s = 0; s < f.switches.size(); ++s) {
    ports[s].resize(f.switches[s].ports.size());
    for (int old = 1; old <= f.switches[s].num_ports; ++old) {
      Peer peer = f.switches[s].ports[old];
      if (peer.is_switch()) peer.port = perm[peer.index][peer.port];
      ports[s][perm[s][old]] = peer;
    }
  }
  for (size_t s = 0; s < f.switches.size(); ++s) f.switches[s].ports = std::move(ports[s]);
  for (EndPort& ep : f.end_ports) ep.switch_port = perm[ep.switch_index][ep.switch_port];
  f.Finalize();
  if (new_port) *new_port = perm;
  std::vector<int> order(f.end_ports.size() + f.switches.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  for (size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[Below(rng, i + 1)]);
  return order;
}

std::vector<SwitchLink> RemoveRandomSwitchLinks(Fabric& f, uint64_t seed, int count) {
  std::vector<SwitchLink> cables;  // each once, from its lower-numbered switch
  for (size_t s = 0; s < f.switches.size(); ++s)
    for (int p = 1; p <= f.switches[s].num_ports; ++p) {
      const Peer& peer = f.switches[s].ports[p];
      if (peer.is_switch() && peer.index > static_cast<int>(s))
        cables.push_back({static_cast<int>(s), p, peer.index, peer.port});
    }
  if (count < 0 || static_cast<size_t>(count) > cables.size())
    throw Error{"cannot remove " + std::to_string(count) + " switch-to-switch links: the fabric has " +
                std::to_string(cables.size())};
  std::mt19937_64 rng(seed);
  for (int i = 0; i < count; ++i) {  // a partial Fisher-Yates: the first `count` are the draw
    std::swap(cables[i], cables[i + Below(rng, cables.size() - i)]);
    const SwitchLink& c = cables[i];
    f.switches[c.switch_a].ports[c.port_a] = Peer{};
    f.switches[c.switch_b].ports[c.port_b] = Peer{};
  }
  cables.resize(count);
  f.Finalize();
  return cables;
}

void WriteNetFile(std::ostream& os, const Fabric& f, const std::vector<int>& order_in) {
  const int ne = static_cast<int>(f.end_ports.size());
  std::vector<int> order = order_in;
  if (order.empty())
    for (int i = 0; i < ne + static_cast<int>(f.switches.size()); ++i) order.push_back(i);
  char buf[64];
  auto name_of_peer = [&](const Peer& p) {
    return p.is_switch() ? f.switches[p.index].name : f.end_ports[p.index].name;
  };
  for (int r : order) {
    if (r < ne) {
      const EndPort& ep = f.end_ports[r];
      std::snprintf(buf, sizeof buf, "caguid=0x%016" PRIx64 "\n", ep.node_guid);
      os << buf << "Hca\t1 \"" << ep.name << "\"\n";
      os << "[" << ep.port_num << "]\t\"" << f.switches[ep.switch_index].name << "\"["
         << ep.switch_port << "]\n\n";
      continue;
    }
    const Switch& sw = f.switches[r - ne];
    std::snprintf(buf, sizeof buf, "switchguid=0x%016" PRIx64, sw.guid);
    os << buf;
    if (sw.port_guid != 0) {  // as ibnetdiscover writes another port 0 GUID
      std::snprintf(buf, sizeof buf, "(%" PRIx64 ")", sw.port_guid);
      os << buf;
    }
    os << "\nSwitch\t" << sw.num_ports << " \"" << sw.name << "\"\n";
    for (int p = 1; p <= sw.num_ports; ++p) {
      const Peer& peer = sw.ports[p];
      if (!peer.connected()) continue;
      os << "[" << p << "]\t\"" << name_of_peer(peer) << "\"[" << peer.port << "]\n";
    }
    os << "\n";
  }
}

// OpenSM's persistent-db format: one record per paragraph (a record's value
// runs until a blank line), so every line is followed by an empty one.
void WriteGuid2Lid(std::ostream& os, const Fabric& f) {
  char buf[80];
  for (const EndPort& ep : f.end_ports) {
    std::snprintf(buf, sizeof buf, "0x%016" PRIx64 " 0x%04x 0x%04x\n\n", ep.port_guid,
                  ep.base_lid, ep.base_lid + ep.lid_count() - 1);
    os << buf;
  }
  for (const Switch& sw : f.switches) {
    std::snprintf(buf, sizeof buf, "0x%016" PRIx64 " 0x%04x 0x%04x\n\n", PortZeroGuid(sw), sw.lid,
                  sw.lid + (1 << sw.lmc) - 1);
    os << buf;
  }
}

}  // namespace ibu
