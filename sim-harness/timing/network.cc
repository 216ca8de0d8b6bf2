#include "sim-harness/timing/network.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <new>
#include <utility>

#include "plugin/core/error.h"

namespace ibu::sim {

Network::Network(const Fabric& f, const Tables& t, int vls, const Sl2VlFn& sl2vl, FlatMfts* taken)
    : fabric_(&f), vls_(vls) {
  for (int sl = 0; sl < 16; ++sl) sl_mod_vls_[sl] = uint8_t(sl % std::max(1, vls));
  CheckTableCounts(f, t);
  NumberGlobalPorts(f);
  CheckLftPorts(f, t);
  CheckEndPortLids(f, t);
  CopyLftRows(t);
  FlattenMfts(f, t, taken);
  if (sl2vl) TabulateSl2Vl(f, vls, sl2vl);
}

void Network::CheckTableCounts(const Fabric& f, const Tables& t) {
  const size_t S = f.switches.size();
  if (t.lft.size() != S)
    throw Error("tables do not match the fabric: they hold " + std::to_string(t.lft.size()) +
                " LFTs, the fabric has " + std::to_string(S) + " switches");
  if (!t.mft.empty() && t.mft.size() != S)
    throw Error("tables do not match the fabric: they hold " + std::to_string(t.mft.size()) +
                " MFTs, the fabric has " + std::to_string(S) + " switches");
}

// Global ports: switch s port p at sw_base_[s] + p (p = 0 unused), then
// one per end port.
void Network::NumberGlobalPorts(const Fabric& f) {
  const int S = int(f.switches.size());
  const int H = int(f.end_ports.size());
  sw_base_.resize(S);
  int32_t next = 0;
  for (int s = 0; s < S; ++s) {
    sw_base_[s] = next;
    next += f.switches[s].num_ports + 1;
  }
  host_base_ = next;
  ports_.resize(size_t(next) + H);
  for (int s = 0; s < S; ++s) {
    const Switch& sw = f.switches[s];
    for (int p = 0; p <= sw.num_ports; ++p) {
      GlobalPort& g = ports_[sw_base_[s] + p];
      g.node = s;
      g.port = uint8_t(p);
      if (p == 0) continue;
      const Peer& peer = sw.ports[p];
      if (peer.is_switch()) g.peer = sw_base_[peer.index] + peer.port;
      else if (peer.is_end_port()) g.peer = host_base_ + peer.index;
    }
  }
  for (int h = 0; h < H; ++h) {
    const EndPort& ep = f.end_ports[h];
    if (ep.switch_index < 0)
      throw Error("end port " + ep.name + " is not cabled to a switch");
    GlobalPort& g = ports_[host_base_ + h];
    g.node = h;
    g.port = uint8_t(ep.port_num);
    g.is_host = true;
    g.peer = sw_base_[ep.switch_index] + ep.switch_port;
    if (ep.base_lid == 0) throw Error("end port " + ep.name + " has no LID");
  }
}

// Every LFT entry for a LID the fabric assigns points at a connected port
// of that switch (or port 0 for the switch's own LID).
void Network::CheckLftPorts(const Fabric& f, const Tables& t) {
  for (size_t s = 0; s < f.switches.size(); ++s) {
    const Switch& sw = f.switches[s];
    const ibu::Lft& l = t.lft[s];
    for (size_t lid = 1; lid < l.out.size() && lid <= kMaxUnicastLid; ++lid) {
      const uint8_t port = l.out[lid];
      if (port == kNoPort || port == 0) continue;
      if (!f.owner(Lid(lid)).valid()) continue;
      if (port > sw.num_ports)
        throw Error("tables do not match the fabric: " + f.SwitchLabel(int(s)) + " LFT sends LID " +
                    std::to_string(lid) + " to port " + std::to_string(port) + " but the switch has " +
                    std::to_string(sw.num_ports) + " ports");
      if (!sw.ports[port].connected())
        throw Error("tables do not match the fabric: " + f.SwitchLabel(int(s)) + " LFT sends LID " +
                    std::to_string(lid) + " to port " + std::to_string(port) + ", which is not cabled");
    }
  }
}

// Every LID of an end port must leave its own switch through the port the
// end port is cabled to: anything else never delivers (it would leave the
// switch and have to come back). The usual cause is LFTs from a run that
// assigned other LIDs than this fabric's (--guid2lid), so it is reported
// here, naming the first such LID, instead of as a routing error mid-run.
void Network::CheckEndPortLids(const Fabric& f, const Tables& t) {
  for (const EndPort& ep : f.end_ports) {
    const ibu::Lft& l = t.lft[ep.switch_index];
    for (int k = 0; k < ep.lid_count(); ++k) {
      const size_t lid = size_t(ep.base_lid) + size_t(k);
      if (lid >= l.out.size() || l.out[lid] == kNoPort) continue;  // no entry: reported if a packet needs it
      if (l.out[lid] != ep.switch_port)
        throw Error("tables do not match the fabric's LIDs: " + f.SwitchLabel(ep.switch_index) +
                    " LFT sends LID " + std::to_string(lid) + " (end port " + ep.name + ", cabled to its port " +
                    std::to_string(ep.switch_port) + ") to port " + std::to_string(int(l.out[lid])) +
                    "; were the tables made with other LIDs? (--guid2lid of the run that made them)");
    }
  }
}

void Network::CopyLftRows(const Tables& t) {
  const int S = int(t.lft.size());
  lft_row_.resize(S);
  lft_len_.resize(S);
  size_t stride = 0;
  for (int s = 0; s < S; ++s) stride = std::max(stride, t.lft[s].out.size());
  stride = (stride + 63) & ~size_t(63);
  const size_t bytes = stride * size_t(S);
  const auto copied = [&] {  // or read in place when memory is short
    try {
      lft_block_.resize(bytes);
      return true;
    } catch (const std::bad_alloc&) {
      return false;
    }
  };
  if (bytes > 0 && bytes <= (size_t(1) << 30) && copied()) {
    uint8_t* b = lft_block_.data();
    for (int s = 0; s < S; ++s) {
      uint8_t* row = b + size_t(s) * stride;
      const std::vector<uint8_t>& out = t.lft[s].out;
      std::copy(out.begin(), out.end(), row);
      std::fill(row + out.size(), row + stride, kNoPort);
      lft_row_[s] = row;
      lft_len_[s] = uint32_t(stride);
    }
  } else {
    for (int s = 0; s < S; ++s) {
      lft_row_[s] = t.lft[s].out.data();
      lft_len_[s] = uint32_t(t.lft[s].out.size());
    }
  }
}

// The MFT entries `taken` holds, then those of t.
void Network::FlattenMfts(const Fabric& f, const Tables& t, FlatMfts* taken) {
  const int S = int(f.switches.size());
  if (taken) {
    if (taken->switches() != S) throw Error("internal: MFTs taken for another fabric");
    // Emptied for good: a second network from it is refused above, not
    // built without multicast entries.
    mfts_ = std::exchange(*taken, FlatMfts(0));
  } else {
    mfts_ = FlatMfts(S);
  }
  size_t entries = 0;
  for (const ibu::Mft& m : t.mft) entries += m.groups.size();
  if (entries == 0) return;
  std::vector<bool> seen(0x4000, false);
  for (const ibu::Mft& m : t.mft)
    for (const auto& [mlid, mask] : m.groups)
      if (mlid >= kMulticastLidBase) seen[mlid - kMulticastLidBase] = true;
  mfts_.Reserve(size_t(std::count(seen.begin(), seen.end(), true)));
  for (int s = 0; s < int(t.mft.size()); ++s)
    for (const auto& [mlid, mask] : t.mft[s].groups)
      if (mlid >= kMulticastLidBase) mfts_.Set(f, s, mlid, mask);
}

int32_t FlatMfts::IndexOf(Lid mlid) {
  if (mlid_index_.empty()) mlid_index_.assign(0x4000, -1);
  int32_t& g = mlid_index_[mlid - kMulticastLidBase];
  if (g < 0) {
    g = int32_t(off_.size() / size_t(switches_));
    off_.resize(off_.size() + size_t(switches_), -1);
  }
  return g;
}

int32_t FlatMfts::Intern(const uint8_t* list, size_t n) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a
  for (size_t i = 0; i < n; ++i) h = (h ^ list[i]) * 1099511628211ull;
  const auto range = lists_.equal_range(h);
  for (auto it = range.first; it != range.second; ++it)
    // An equal count byte means an equal length: the compare stays inside
    // the stored list even when two hashes collide.
    if (ports_[size_t(it->second)] == list[0] && std::equal(list, list + n, ports_.begin() + it->second))
      return it->second;
  const int32_t off = int32_t(ports_.size());
  ports_.insert(ports_.end(), list, list + n);
  lists_.emplace(h, off);
  return off;
}

// Only the switch's own ports are tested one by one (a set-up cost per
// tree switch, millions of them with per-source trees); any bit beyond
// them is an error.
void FlatMfts::Set(const Fabric& f, int sw, Lid mlid, const PortMask& mask) {
  const Switch& s = f.switches[size_t(sw)];
  auto refuse = [&](int p) {
    throw Error("tables do not match the fabric: " + f.SwitchLabel(sw) + " MFT of MLID " + HexLid(mlid) +
                " names port " + std::to_string(p) +
                (p > s.num_ports ? " beyond the switch's ports" : ", which is not cabled"));
  };
  std::array<uint8_t, 256> list;  // count, ports...
  size_t n = 1;
  const int last = std::min(s.num_ports, 255);
  for (int p = 1; p <= last; ++p) {
    if (!mask.test(p)) continue;
    if (!s.ports[p].connected()) refuse(p);
    list[n++] = uint8_t(p);
  }
  if ((mask >> size_t(last + 1)).any())
    for (int p = last + 1; p < 256; ++p)
      if (mask.test(p)) refuse(p);
  list[0] = uint8_t(n - 1);
  const int32_t g = IndexOf(mlid);
  off_[size_t(g) * size_t(switches_) + size_t(sw)] = Intern(list.data(), n);
}

void FlatMfts::Take(const Fabric& f, Lid mlid, Tables& t) {
  for (int s = 0; s < int(t.mft.size()); ++s) {
    std::map<Lid, PortMask>& groups = t.mft[s].groups;
    const auto it = groups.find(mlid);
    if (it == groups.end()) continue;
    Set(f, s, mlid, it->second);
    groups.erase(it);
  }
}

void Network::TabulateSl2Vl(const Fabric& f, int vls, const Sl2VlFn& sl2vl) {
  const int S = int(f.switches.size());
  const int H = int(f.end_ports.size());
  sl2vl_.resize(S);
  for (int s = 0; s < S; ++s) {
    SwitchSl2Vl& m = sl2vl_[s];
    m.stride = f.switches[s].num_ports + 1;
    m.vl.resize(size_t(m.stride) * m.stride * 16);
    for (int in = 0; in < m.stride; ++in)
      for (int out = 0; out < m.stride; ++out)
        for (int sl = 0; sl < 16; ++sl) {
          const int vl = sl2vl(s, in, out, sl);
          if (vl < 0 || vl >= vls)
            throw Error("SL2VL of " + f.SwitchLabel(s) + " maps SL " + std::to_string(sl) + " from port " +
                        std::to_string(in) + " to port " + std::to_string(out) + " onto VL " +
                        std::to_string(vl) + ", outside 0.." + std::to_string(vls - 1));
          m.vl[(size_t(in) * m.stride + out) * 16 + sl] = uint8_t(vl);
        }
  }
  host_vl_.resize(size_t(H) * 16);
  for (int h = 0; h < H; ++h)
    for (int sl = 0; sl < 16; ++sl) {
      const int vl = sl2vl(-1, h, f.end_ports[h].port_num, sl);
      if (vl < 0 || vl >= vls)
        throw Error("SL2VL of end port " + f.end_ports[h].name + " maps SL " + std::to_string(sl) +
                    " onto VL " + std::to_string(vl));
      host_vl_[size_t(h) * 16 + sl] = uint8_t(vl);
    }
  sl_keeps_vl_ = EverySlKeepsOneVl(f);
}

bool Network::EverySlKeepsOneVl(const Fabric& f) const {
  for (int sl = 0; sl < 16; ++sl) {
    const int vl = HostVl(0, sl);
    for (int h = 1; h < num_hosts(); ++h)
      if (HostVl(h, sl) != vl) return false;
    for (int sw = 0; sw < int(f.switches.size()); ++sw)
      for (int in = 1; in <= f.switches[sw].num_ports; ++in)
        for (int out = 1; out <= f.switches[sw].num_ports; ++out)
          if (out != in && Vl(sw, in, out, sl) != vl) return false;
  }
  return true;
}

std::array<uint8_t, 16> Network::SlClassLeaders() const {
  // Rows of 16 VLs, one per SL: per switch (in, out) pair and per host.
  std::vector<const uint8_t*> rows;
  for (const SwitchSl2Vl& m : sl2vl_)
    for (size_t r = 0; r < m.vl.size(); r += 16) rows.push_back(&m.vl[r]);
  for (size_t r = 0; r < host_vl_.size(); r += 16) rows.push_back(&host_vl_[r]);
  if (sl2vl_.empty() || host_vl_.empty()) rows.push_back(sl_mod_vls_);
  auto same_everywhere = [&rows](int a, int b) {
    for (const uint8_t* row : rows)
      if (row[a] != row[b]) return false;
    return true;
  };
  std::array<uint8_t, 16> leader;
  for (int sl = 0; sl < 16; ++sl) {
    leader[size_t(sl)] = uint8_t(sl);
    for (int l = 0; l < sl; ++l)
      if (leader[size_t(l)] == l && same_everywhere(l, sl)) {
        leader[size_t(sl)] = uint8_t(l);
        break;
      }
  }
  return leader;
}

std::string Network::RouteProblem(int sw, Lid dlid, int in_port) const {
  const std::string lft = fabric_->SwitchLabel(sw) + " LFT sends LID " + std::to_string(dlid);
  const uint8_t out = Lft(sw, dlid);
  if (out == kNoPort)
    return "no route: " + fabric_->SwitchLabel(sw) + " has no LFT entry for LID " + std::to_string(dlid) +
           " (packet arrived on port " + std::to_string(in_port) + ")";
  if (out == 0) return "no route: " + lft + " to port 0 (the switch itself), not to its end port";
  if (out == in_port) return "bad route: " + lft + " back out of its arrival port " + std::to_string(in_port);
  if (ports_[SwitchPort(sw, out)].peer < 0)
    return "no route: " + lft + " to port " + std::to_string(out) + ", which is not cabled";
  return "";
}

std::string Network::PortName(int gp) const {
  const GlobalPort& g = ports_[gp];
  if (g.is_host) return "end port " + fabric_->end_ports[g.node].name;
  return fabric_->PortLabel(g.node, g.port);
}

std::string Network::LinkName(int gp) const {
  const GlobalPort& g = ports_[gp];
  return PortName(gp) + " -> " + (g.peer >= 0 ? PortName(g.peer) : std::string("(unconnected)"));
}

}  // namespace ibu::sim
