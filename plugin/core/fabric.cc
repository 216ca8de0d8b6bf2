#include "plugin/core/fabric.h"

#include <cstdio>

#include "plugin/core/error.h"

namespace ibu {

std::string LidRange(long lo, long hi) {
  return lo == hi ? "LID " + std::to_string(lo) : "LIDs " + std::to_string(lo) + "-" + std::to_string(hi);
}

std::string HexLid(Lid lid) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%04x", static_cast<unsigned>(lid));
  return text;
}

std::string Hex16(Guid g) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(g));
  return buf;
}

namespace {

void ClaimLids(std::vector<LidOwner>& owner, Lid first, int count,
               LidOwner who, const std::string& label) {
  for (int i = 0; i < count; ++i) {
    const int lid = first + i;
    if (lid > kMaxUnicastLid)
      throw Error(label + ": LID " + std::to_string(lid) +
                  " is beyond the unicast range (max 0xBFFF)");
    if (owner.size() <= static_cast<size_t>(lid)) owner.resize(lid + 1);
    if (owner[lid].valid())
      throw Error(label + ": LID " + std::to_string(lid) +
                  " is already assigned to another port");
    owner[lid] = who;
  }
}

}  // namespace

void Fabric::Finalize() {
  owner_.assign(1, LidOwner{});
  max_lid_ = 0;
  switch_by_guid_.clear();
  end_port_by_guid_.clear();
  for (size_t s = 0; s < switches.size(); ++s) {
    const Switch& sw = switches[s];
    if (static_cast<int>(sw.ports.size()) != sw.num_ports + 1)
      throw Error(SwitchLabel(s) + ": port table size does not match " +
                  std::to_string(sw.num_ports) + " ports");
    for (int p = 1; p <= sw.num_ports; ++p) {
      const Peer& peer = sw.ports[p];
      if (peer.is_switch()) {
        const Switch& other = switches.at(peer.index);
        const Peer& back = other.ports.at(peer.port);
        if (!back.is_switch() || back.index != static_cast<int>(s) ||
            back.port != p)
          throw Error(PortLabel(s, p) + ": cable is not symmetric");
      } else if (peer.is_end_port()) {
        const EndPort& ep = end_ports.at(peer.index);
        if (ep.switch_index != static_cast<int>(s) || ep.switch_port != p)
          throw Error(PortLabel(s, p) + ": end-port cable is not symmetric");
      }
    }
    if (!switch_by_guid_.emplace(sw.guid, static_cast<int>(s)).second)
      throw Error(SwitchLabel(s) + ": GUID appears twice");
    if (sw.port_guid != 0 && sw.port_guid != sw.guid &&
        !switch_by_guid_.emplace(sw.port_guid, static_cast<int>(s)).second)
      throw Error(SwitchLabel(s) + ": port GUID " + Hex16(sw.port_guid) + " is another switch's GUID");
    if (sw.lmc > 7) throw Error(SwitchLabel(s) + ": LMC " + std::to_string(sw.lmc) + " is outside 0..7");
    if (sw.lid != 0)
      ClaimLids(owner_, sw.lid, 1 << sw.lmc,
                {Peer::Kind::kSwitch, static_cast<int>(s)}, SwitchLabel(s));
  }
  for (size_t e = 0; e < end_ports.size(); ++e) {
    const EndPort& ep = end_ports[e];
    if (!end_port_by_guid_.emplace(ep.port_guid, static_cast<int>(e)).second)
      throw Error(ep.name + ": port GUID appears twice");
    if (ep.lmc > 7) throw Error(ep.name + ": LMC " + std::to_string(ep.lmc) + " is outside 0..7");
    if (ep.base_lid == 0) continue;
    if (ep.base_lid & ((1 << ep.lmc) - 1))
      throw Error(ep.name + ": base LID " + std::to_string(ep.base_lid) +
                  " is not aligned to LMC " + std::to_string(ep.lmc));
    ClaimLids(owner_, ep.base_lid, ep.lid_count(),
              {Peer::Kind::kEndPort, static_cast<int>(e)}, ep.name);
  }
  for (size_t s = 0; s < switches.size(); ++s)
    if (switches[s].port_guid != 0 && end_port_by_guid_.count(switches[s].port_guid))
      throw Error(SwitchLabel(s) + ": port GUID " + Hex16(switches[s].port_guid) + " is an end port's GUID");
  max_lid_ = static_cast<Lid>(owner_.size() - 1);
}

int Fabric::SwitchByGuid(Guid guid) const {
  auto it = switch_by_guid_.find(guid);
  return it == switch_by_guid_.end() ? -1 : it->second;
}

int Fabric::EndPortByGuid(Guid port_guid) const {
  auto it = end_port_by_guid_.find(port_guid);
  return it == end_port_by_guid_.end() ? -1 : it->second;
}

std::string Fabric::SwitchLabel(int sw) const {
  const Switch& s = switches.at(sw);
  return "switch " + s.name + " (" + Hex16(s.guid) + ", LID " +
         std::to_string(s.lid) + ")";
}

std::string Fabric::PortLabel(int sw, int port) const {
  return SwitchLabel(sw) + " port " + std::to_string(port);
}

void ConnectSwitches(Fabric& f, int a, int pa, int b, int pb) {
  f.switches.at(a).ports.at(pa) = {Peer::Kind::kSwitch, b, pb};
  f.switches.at(b).ports.at(pb) = {Peer::Kind::kSwitch, a, pa};
}

void ConnectEndPort(Fabric& f, int ep, int sw, int port) {
  EndPort& e = f.end_ports.at(ep);
  e.switch_index = sw;
  e.switch_port = port;
  f.switches.at(sw).ports.at(port) = {Peer::Kind::kEndPort, ep, e.port_num};
}

}  // namespace ibu
