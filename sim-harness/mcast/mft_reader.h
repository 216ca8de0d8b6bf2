// Reads multicast forwarding entries straight out of the switches with
// LID-routed SubnGet(MulticastForwardingTable) SMPs — what a switch really
// holds, not what the SM believes it programmed. Over libibmad/libibumad:
// a real port, or ibsim through libumad2sim.so.
#pragma once

#include <string>

#include "plugin/core/tables.h"

struct ibmad_port;

namespace ibu::mcast {

class MftReader {
 public:
  // Opens the local port for SMPs (ca empty: the first one). Throws ibu::Error.
  MftReader(const std::string& ca, int port, int timeout_ms);
  ~MftReader();
  MftReader(const MftReader&) = delete;
  MftReader& operator=(const MftReader&) = delete;

  // The port mask of `mlid` on the switch at `switch_lid` (ports
  // 0..num_ports): one SMP per 16 ports. Throws ibu::Error naming the LID
  // when the switch does not answer.
  PortMask Read(Lid switch_lid, int num_ports, Lid mlid);

  long smps_sent() const { return smps_; }

 private:
  ::ibmad_port* port_ = nullptr;
  int timeout_ms_;
  long smps_ = 0;
};

}  // namespace ibu::mcast
