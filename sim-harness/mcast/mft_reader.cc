#include "sim-harness/mcast/mft_reader.h"
#include "sim-harness/mcast/sa_client.h"

#include <infiniband/mad.h>

#include "plugin/core/error.h"

namespace ibu::mcast {

namespace {

constexpr Lid kFirstMlid = 0xC000;
constexpr int kEntriesPerBlock = 32;  // MulticastForwardingTable: 32 MLIDs x 16 ports
constexpr int kPortsPerPosition = 16;

}  // namespace

MftReader::MftReader(const std::string& ca, int port, int timeout_ms) : timeout_ms_(timeout_ms) {
  int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS};
  port_ = OpenLocalPort(ca, port, classes, 2);
  if (!port_)
    throw Error("cannot open local IB port " + (ca.empty() ? std::string("(first CA)") : ca) +
                " for SMPs (under ibsim: LD_PRELOAD=" + Umad2SimPath() + " and ibsim running?)");
}

MftReader::~MftReader() {
  if (port_) mad_rpc_close_port(port_);
}

PortMask MftReader::Read(Lid switch_lid, int num_ports, Lid mlid) {
  if (mlid < kFirstMlid) throw Error("MLID " + std::to_string(mlid) + " is below 0xC000");
  const unsigned index = mlid - kFirstMlid;
  const unsigned block = index / kEntriesPerBlock;
  const unsigned entry = index % kEntriesPerBlock;
  PortMask mask;
  for (int position = 0; position * kPortsPerPosition <= num_ports; ++position) {
    uint8_t data[IB_SMP_DATA_SIZE] = {};
    ib_portid_t id{};
    ib_portid_set(&id, switch_lid, 0, 0);
    ++smps_;
    if (!smp_query_via(data, &id, IB_ATTR_MULTICASTFORWTBL,
                       block | (static_cast<unsigned>(position) << 28), timeout_ms_, port_))
      throw Error("switch at LID " + std::to_string(switch_lid) +
                  " did not answer SubnGet(MulticastForwardingTable) block " + std::to_string(block) +
                  " position " + std::to_string(position) +
                  " (is that LID a switch of the live subnet? the net file's LIDs must be the SM's)");
    const unsigned bits = static_cast<unsigned>(data[2 * entry]) << 8 | data[2 * entry + 1];
    for (int b = 0; b < kPortsPerPosition; ++b)
      if (bits & (1u << b) && position * kPortsPerPosition + b <= num_ports)
        mask.set(position * kPortsPerPosition + b);
  }
  return mask;
}

}  // namespace ibu::mcast
