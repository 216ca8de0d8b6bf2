#include "tests/unit/timing_fabrics.h"

#include <set>

namespace ibu::simtest {

int AddSwitch(Fabric& f, int ports, const std::string& name) {
  Switch s;
  s.guid = 0x200000 + f.switches.size();
  s.name = name;
  s.num_ports = ports;
  s.ports.resize(ports + 1);
  f.switches.push_back(s);
  return int(f.switches.size() - 1);
}

int AddHost(Fabric& f, const std::string& name) {
  EndPort e;
  e.node_guid = 0x100000 + 2 * f.end_ports.size();
  e.port_guid = e.node_guid + 1;
  e.name = name;
  e.port_num = 1;
  f.end_ports.push_back(e);
  return int(f.end_ports.size() - 1);
}

void NumberLids(Fabric& f) {
  const int H = int(f.end_ports.size());
  for (int h = 0; h < H; ++h) f.end_ports[h].base_lid = Lid(h + 1);
  for (size_t s = 0; s < f.switches.size(); ++s) f.switches[s].lid = Lid(H + 1 + s);
  f.Finalize();
}

namespace {

void SwitchLidsLocal(Setup& st) {
  // Each switch's own LID goes to port 0.
  for (size_t s = 0; s < st.fabric.switches.size(); ++s)
    st.tables.lft[s].set(st.fabric.switches[s].lid, 0);
}

}  // namespace

Setup Star(int hosts) {
  Setup st;
  Fabric& f = st.fabric;
  const int sw = AddSwitch(f, hosts, "S");
  for (int h = 0; h < hosts; ++h) {
    AddHost(f, "H" + std::to_string(h));
    ConnectEndPort(f, h, sw, h + 1);
  }
  NumberLids(f);
  st.tables.Resize(f);
  for (int h = 0; h < hosts; ++h) st.tables.lft[sw].set(f.end_ports[h].base_lid, uint8_t(h + 1));
  SwitchLidsLocal(st);
  return st;
}

Setup Line(int n) {
  Setup st;
  Fabric& f = st.fabric;
  for (int s = 0; s < n; ++s) AddSwitch(f, 3, "L" + std::to_string(s));
  for (int s = 0; s + 1 < n; ++s) ConnectSwitches(f, s, 2, s + 1, 1);
  for (int h = 0; h < n; ++h) {
    AddHost(f, "H" + std::to_string(h));
    ConnectEndPort(f, h, h, 3);
  }
  NumberLids(f);
  st.tables.Resize(f);
  for (int s = 0; s < n; ++s)
    for (int h = 0; h < n; ++h)
      st.tables.lft[s].set(f.end_ports[h].base_lid, uint8_t(h == s ? 3 : (h < s ? 1 : 2)));
  SwitchLidsLocal(st);
  return st;
}

Setup ClockwiseRing(int n) {
  Setup st;
  Fabric& f = st.fabric;
  for (int s = 0; s < n; ++s) AddSwitch(f, 3, "R" + std::to_string(s));
  for (int s = 0; s < n; ++s) ConnectSwitches(f, s, 1, (s + 1) % n, 2);
  for (int h = 0; h < n; ++h) {
    AddHost(f, "H" + std::to_string(h));
    ConnectEndPort(f, h, h, 3);
  }
  NumberLids(f);
  st.tables.Resize(f);
  for (int s = 0; s < n; ++s)
    for (int h = 0; h < n; ++h) st.tables.lft[s].set(f.end_ports[h].base_lid, uint8_t(h == s ? 3 : 1));
  SwitchLidsLocal(st);
  return st;
}

Setup Tree(int leaves, int hpl) {
  Setup st;
  Fabric& f = st.fabric;
  const int root = AddSwitch(f, leaves, "Root");
  for (int l = 0; l < leaves; ++l) {
    const int sw = AddSwitch(f, hpl + 1, "Leaf" + std::to_string(l));
    ConnectSwitches(f, root, l + 1, sw, 1);
  }
  for (int h = 0; h < leaves * hpl; ++h) {
    AddHost(f, "H" + std::to_string(h));
    ConnectEndPort(f, h, 1 + h / hpl, 2 + h % hpl);
  }
  NumberLids(f);
  st.tables.Resize(f);
  for (int h = 0; h < leaves * hpl; ++h) {
    const Lid lid = f.end_ports[h].base_lid;
    st.tables.lft[root].set(lid, uint8_t(1 + h / hpl));
    for (int l = 0; l < leaves; ++l)
      st.tables.lft[1 + l].set(lid, uint8_t(h / hpl == l ? 2 + h % hpl : 1));
  }
  SwitchLidsLocal(st);
  return st;
}

void TreeMulticast(Setup& st, int leaves, int hpl, Lid mlid, const std::vector<int>& members) {
  (void)leaves;
  std::set<int> leaves_with;
  for (int h : members) leaves_with.insert(h / hpl);
  PortMask root;
  for (int l : leaves_with) root.set(1 + l);
  if (leaves_with.size() > 1) st.tables.mft[0].groups[mlid] = root;
  for (int l : leaves_with) {
    PortMask m;
    for (int h : members)
      if (h / hpl == l) m.set(2 + h % hpl);
    if (leaves_with.size() > 1) m.set(1);
    st.tables.mft[1 + l].groups[mlid] = m;
  }
}

}  // namespace ibu::simtest
