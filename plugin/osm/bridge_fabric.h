// A core Fabric handed to the bridge as the adapter hands it OpenSM's
// subnet (switches, their links, end ports), for the bridge's unit tests
// and the adapter benchmark, which run without OpenSM.
#pragma once

#include "plugin/core/fabric.h"
#include "plugin/osm/bridge.h"

namespace ibu {

inline void DescribeFabricToBridge(ibu_engine* e, const Fabric& f) {
  ibu_fabric_reset(e);
  for (const Switch& sw : f.switches) {
    ibu_fabric_add_switch(e, sw.guid, sw.name.c_str(), sw.num_ports, sw.lid, sw.lmc);
    for (int p = 1; p <= sw.num_ports; ++p)
      if (sw.ports[p].is_switch())
        ibu_fabric_add_switch_link(e, sw.guid, p, f.switches[sw.ports[p].index].guid, sw.ports[p].port);
  }
  for (const EndPort& ep : f.end_ports)
    ibu_fabric_add_end_port(e, ep.port_guid, ep.node_guid, ep.name.c_str(), ep.port_num, ep.base_lid, ep.lmc,
                            f.switches[ep.switch_index].guid, ep.switch_port);
}

}  // namespace ibu
