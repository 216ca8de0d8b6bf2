// A subnet-administration client: multicast membership (MCMemberRecord Set
// to create or join, Delete to leave) and the PathRecord of one path, over
// libibmad/libibumad — the real MAD path, on a real HCA port or on ibsim
// through libumad2sim.so.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

struct ibmad_port;  // libibmad's, kept out of this header

namespace ibu::mcast {

// The libumad2sim.so that connects libibumad to ibsim, as configure found
// it: what our "cannot open port" errors tell the user to preload.
std::string Umad2SimPath();

// mad_rpc_open_port, guarded under libumad2sim.so: throws ibu::Error
// naming ibsim's socket (or host and port) when nothing serves it, where
// libumad2sim waited forever, and turns its exit when ibsim refuses to
// attach (an unknown SIM_HOST) into a message naming SIM_HOST, status 2.
// Returns nullptr when the port does not open otherwise.
::ibmad_port* OpenLocalPort(const std::string& ca, int port, int* classes, int nclasses);

using Gid = std::array<uint8_t, 16>;

// JoinState bits of the MCMemberRecord. SendOnlyFullMember (IBA 1.3) sends
// without receiving, and unlike SendOnly it may create the group (OpenSM
// 3.3.23 does so).
enum class JoinState : uint8_t { kFull = 1, kNonMember = 2, kSendOnly = 4, kSendOnlyFull = 8 };

struct MemberRequest {
  Gid mgid{};                     // all zero: the SA assigns one (create)
  JoinState state = JoinState::kFull;
  uint32_t qkey = 0x80010000;     // IB_DEFAULT_QP1_QKEY-like default
  uint16_t pkey = 0xffff;
  uint8_t mtu = 0;                // IB encoding (4 = 2048 bytes); 0: the SA picks
  uint8_t rate = 0;               // IB encoding (3 = 10 Gb/s); 0: the SA picks
  uint8_t sl = 0;
  // The member port; all zero: the requester's own port. Another port's GID
  // makes a proxy join (IBA ProxyJoin; OpenSM accepts it when both ports
  // share a P_Key), which lets one SA client act for many hosts.
  Gid port_gid{};
  // A join of an existing group must match its Q_Key, P_Key and SL when it
  // sends them, and a create must send them. With `join_as_is` the SA is
  // first asked whether the group exists (FindGroup): a new one is created
  // with all of them; an existing one is joined with only the components
  // in `given` (kGivenQkey ...; MTU and rate go when set), so it is taken
  // as it is. Without it (mcsetup, which creates its groups and measures
  // the create's latency) every join sends all.
  bool join_as_is = false;
  unsigned given = 0;
};
constexpr unsigned kGivenQkey = 1, kGivenPkey = 2, kGivenSl = 4;

// Whether the SA has a group of some MGID; kUnknown when it did not say.
enum class GroupFound { kUnknown, kYes, kNo };

// The parameters of an existing group that a join sending them must match,
// as the SA's MCMemberRecord gives them (MTU and rate: the values, without
// their selectors).
struct GroupParams {
  uint32_t qkey = 0;
  uint16_t pkey = 0;
  uint8_t sl = 0, mtu = 0, rate = 0;
};

// The values a join sends (those in `given`, MTU and rate when set) that
// the existing group does not have, each said as "the group's Q_Key is
// 0x1234, not --qkey 0x1111"; none when the SA would take the join as it
// is. P_Keys are matched as the SA matches them: the same 15-bit base, one
// of the two a full member's key (0x7fff joins a 0xffff group).
std::vector<std::string> Mismatches(const MemberRequest& req, const GroupParams& group);

struct MemberReply {
  bool ok = false;
  GroupFound group = GroupFound::kUnknown;  // a join_as_is: before the join
  GroupParams params;                       // ... and, when kYes, the group's
  uint16_t mlid = 0;
  Gid mgid{};
  uint32_t mad_status = 0;  // 0 on success
  std::string error;        // decoded status or transport failure
};

// "ff12:401b::1" (IPv6 notation) -> Gid; throws ibu::Error naming the text.
Gid ParseGid(const std::string& text);
std::string FormatGid(const Gid& g);

// Names the SA/MAD status bits ("SA: request denied (0x0700)").
std::string DecodeMadStatus(uint32_t status);

// The SA's class-specific code in a MAD status (bits 8-15), e.g.
// kSaRequestInvalid; 0 when the SA reported none.
constexpr unsigned kSaRequestInvalid = 2, kSaNoRecords = 3, kSaInsufficientComponents = 6;
inline unsigned SaStatus(uint32_t mad_status) { return (mad_status >> 8) & 0xff; }

struct PathReply {
  bool ok = false;
  uint8_t sl = 0;
  uint32_t mad_status = 0;  // 0 on success
  std::string error;        // decoded status or transport failure
};

class SaClient {
 public:
  // Opens the local port (ca may be empty: the first one). Throws ibu::Error.
  SaClient(const std::string& ca, int port, int timeout_ms);
  ~SaClient();
  SaClient(const SaClient&) = delete;
  SaClient& operator=(const SaClient&) = delete;

  MemberReply Join(const MemberRequest& req);
  // SubnAdmGet(MCMemberRecord) by MGID alone: one record (its parameters
  // into `params`) or "no records", one MAD either way, and OpenSM logs
  // neither as an error. kUnknown on another status, or with `no_answer`
  // set when the SA did not answer.
  GroupFound FindGroup(const Gid& mgid, GroupParams* params, std::string* no_answer);
  MemberReply Leave(const MemberRequest& req);
  // PathRecord Get for the path from `slid` to `dlid` (one record: both
  // LIDs given), as an application asks before it connects.
  PathReply Path(uint16_t slid, uint16_t dlid);
  uint64_t port_guid() const;
  // The GID of port `guid` in this port's subnet (its prefix + the GUID).
  Gid GidOfPort(uint64_t guid) const;

 private:
  // `all_components`: a SET sends Q_Key, P_Key, SL, TClass and FlowLabel
  // whether given or not (a create).
  MemberReply Call(int method, const MemberRequest& req, bool all_components);
  // One SA request; false (and `error` set) when it failed.
  bool Rpc(int method, int attr, uint64_t mask, uint8_t* data, uint32_t* status, std::string* error);

  ::ibmad_port* port_ = nullptr;
  int timeout_ms_;
  Gid port_gid_{};
  uint16_t sm_lid_ = 0;
  int portnum_ = 0;  // the local port's number on its CA
};

}  // namespace ibu::mcast
