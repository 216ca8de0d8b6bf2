// The fabric model every algorithm works on: switches, end ports (HCA ports),
// the cables between them, and the LIDs the SM assigned. It knows nothing of
// OpenSM; the adapter and the net-file parser both build one.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibu {

using Lid = uint16_t;
using Guid = uint64_t;

constexpr Lid kMaxUnicastLid = 0xBFFF;
constexpr Lid kMulticastLidBase = 0xC000;
constexpr Lid kMaxMulticastLid = 0xFFFE;  // 0xFFFF is the permissive LID
constexpr int kMaxSwitchPorts = 254;
// Out-port value meaning "no route" in an LFT (OpenSM's OSM_NO_PATH).
constexpr uint8_t kNoPort = 255;

// "0xc001": a LID as ibroute and OpenSM's log print it, for messages.
std::string HexLid(Lid lid);
// "LID 4" or "LIDs 4-7", as messages show a port's LIDs.
std::string LidRange(long lo, long hi);

// What sits at the far end of a switch port.
struct Peer {
  enum class Kind : uint8_t { kNone, kSwitch, kEndPort };
  Kind kind = Kind::kNone;
  int index = -1;  // into Fabric::switches or Fabric::end_ports
  int port = 0;    // remote port number (switch port, or HCA port number)

  bool connected() const { return kind != Kind::kNone; }
  bool is_switch() const { return kind == Kind::kSwitch; }
  bool is_end_port() const { return kind == Kind::kEndPort; }
};

struct Switch {
  Guid guid = 0;
  // Port 0's GUID when it is not `guid` (0: the same). Real switches may
  // have one, ibnetdiscover writes it ("switchguid=0xNODE(PORT)") and the
  // SM's guid2lid lists the switch by it: SwitchByGuid takes either.
  Guid port_guid = 0;
  std::string name;  // node description; for humans and logs only
  int num_ports = 0;  // external ports 1..num_ports; port 0 is management
  Lid lid = 0;
  uint8_t lmc = 0;  // switches use base port 0 LMC, normally 0
  std::vector<Peer> ports;  // size num_ports + 1; ports[0] unused

  const Peer& peer(int port) const { return ports.at(port); }
};

inline Guid PortZeroGuid(const Switch& sw) { return sw.port_guid != 0 ? sw.port_guid : sw.guid; }

// One connected channel-adapter port: the unit that owns LIDs.
struct EndPort {
  Guid port_guid = 0;
  Guid node_guid = 0;
  std::string name;  // node description
  int port_num = 1;  // port number on its HCA
  Lid base_lid = 0;
  uint8_t lmc = 0;
  int switch_index = -1;  // switch it is cabled to
  int switch_port = 0;

  int lid_count() const { return 1 << lmc; }
};

// Who owns a LID.
struct LidOwner {
  Peer::Kind kind = Peer::Kind::kNone;
  int index = -1;
  bool valid() const { return kind != Peer::Kind::kNone; }
};

class Fabric {
 public:
  std::vector<Switch> switches;
  std::vector<EndPort> end_ports;

  // Rebuilds the LID index and cross-checks links; call after mutation.
  // Throws ibu::Error naming the switch/port on inconsistency.
  void Finalize();

  Lid max_lid() const { return max_lid_; }
  LidOwner owner(Lid lid) const {
    return lid < owner_.size() ? owner_[lid] : LidOwner{};
  }
  int SwitchByGuid(Guid guid) const;
  int EndPortByGuid(Guid port_guid) const;

  // "SW<00,2> (0x0000000000200003)" style label for messages.
  std::string SwitchLabel(int sw) const;
  std::string PortLabel(int sw, int port) const;

 private:
  std::vector<LidOwner> owner_;
  std::unordered_map<Guid, int> switch_by_guid_;
  std::unordered_map<Guid, int> end_port_by_guid_;
  Lid max_lid_ = 0;
};

// "0x0000000000200003": a GUID as messages and files show it.
std::string Hex16(Guid g);

// Adds a cable between two switch ports (both directions).
void ConnectSwitches(Fabric& f, int a, int pa, int b, int pb);
// Cables end port `ep` to switch `sw` port `port`.
void ConnectEndPort(Fabric& f, int ep, int sw, int port);

}  // namespace ibu
