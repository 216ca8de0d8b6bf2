#include "sim-harness/mcast/sa_client.h"

#include <arpa/inet.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "plugin/core/error.h"

#ifndef IBUNION_UMAD2SIM
#define IBUNION_UMAD2SIM ""
#endif

namespace ibu::mcast {

std::string Umad2SimPath() {
  const std::string path = IBUNION_UMAD2SIM;
  return path.empty() ? "libumad2sim.so (Debian package libumad2sim0, by its full path)" : path;
}

namespace {

// Component mask bits of MCMemberRecord (IBA 15.2.5.17).
constexpr uint64_t kMgid = 1ULL << 0, kPortGid = 1ULL << 1, kQkey = 1ULL << 2,
                   kMtuSel = 1ULL << 4, kMtu = 1ULL << 5, kTclass = 1ULL << 6,
                   kPkey = 1ULL << 7, kRateSel = 1ULL << 8, kRate = 1ULL << 9,
                   kSl = 1ULL << 12, kFlow = 1ULL << 13, kJoinState = 1ULL << 16;

}  // namespace

Gid ParseGid(const std::string& text) {
  Gid g{};
  if (inet_pton(AF_INET6, text.c_str(), g.data()) != 1)
    throw Error("MGID '" + text + "': expected IPv6 notation such as ff12:401b::1");
  return g;
}

std::string FormatGid(const Gid& g) {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, g.data(), buf, sizeof buf);
  return buf;
}

std::string DecodeMadStatus(uint32_t status) {
  static const char* const kSa[] = {"",
                                    "no resources",
                                    "request invalid",
                                    "no records",
                                    "too many records",
                                    "invalid GID",
                                    "insufficient components",
                                    "request denied"};
  std::string out;
  const unsigned sa = (status >> 8) & 0xff;
  if (sa && sa < sizeof kSa / sizeof kSa[0]) out = std::string("SA: ") + kSa[sa];
  else if (sa) out = "SA: class-specific error " + std::to_string(sa);
  switch (status & 0x1c) {
    case 0x04: out += (out.empty() ? "" : ", ") + std::string("bad class version"); break;
    case 0x08: out += (out.empty() ? "" : ", ") + std::string("method not supported"); break;
    case 0x0c: out += (out.empty() ? "" : ", ") + std::string("method/attribute not supported"); break;
    case 0x1c: out += (out.empty() ? "" : ", ") + std::string("invalid attribute or modifier value"); break;
    default: break;
  }
  if (status & 0x1) out += (out.empty() ? "" : ", ") + std::string("busy");
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%04x", status);
  return (out.empty() ? std::string("MAD status") : out) + " (" + hex + ")";
}

SaClient::SaClient(const std::string& ca, int port, int timeout_ms) : timeout_ms_(timeout_ms) {
  int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS};
  port_ = mad_rpc_open_port(ca.empty() ? nullptr : const_cast<char*>(ca.c_str()), port, classes, 3);
  if (!port_)
    throw Error("cannot open local IB port " + (ca.empty() ? std::string("(first CA)") : ca) +
                " port " + std::to_string(port) + " (under ibsim: is LD_PRELOAD=" + Umad2SimPath() +
                " set and ibsim running?)");
  ib_portid_t self{};
  ibmad_gid_t gid;
  int portnum = 0;
  if (ib_resolve_self_via(&self, &portnum, &gid, port_) < 0) {
    mad_rpc_close_port(port_);
    throw Error("cannot query the local port's GID (is the port active?)");
  }
  std::memcpy(port_gid_.data(), gid, 16);
  ib_portid_t sm{};
  if (ib_resolve_smlid_via(&sm, timeout_ms_, port_) < 0 || !sm.lid) {
    mad_rpc_close_port(port_);
    throw Error("no subnet manager known to the local port (SM LID is 0)");
  }
  sm_lid_ = static_cast<uint16_t>(sm.lid);
}

SaClient::~SaClient() {
  if (port_) mad_rpc_close_port(port_);
}

uint64_t SaClient::port_guid() const {
  uint64_t g = 0;
  for (int i = 8; i < 16; ++i) g = g << 8 | port_gid_[i];
  return g;
}

Gid SaClient::GidOfPort(uint64_t guid) const {
  Gid g = port_gid_;
  for (int i = 15; i >= 8; --i, guid >>= 8) g[i] = static_cast<uint8_t>(guid);
  return g;
}

MemberReply SaClient::Join(const MemberRequest& req) { return Call(IB_MAD_METHOD_SET, req); }
MemberReply SaClient::Leave(const MemberRequest& req) { return Call(IB_MAD_METHOD_DELETE, req); }

MemberReply SaClient::Call(int method, const MemberRequest& req) {
  uint8_t data[IB_SA_DATA_SIZE] = {};
  Gid mgid = req.mgid;
  mad_set_array(data, 0, IB_SA_MCM_MGID_F, mgid.data());
  Gid pgid = req.port_gid == Gid{} ? port_gid_ : req.port_gid;
  mad_set_array(data, 0, IB_SA_MCM_PORTGID_F, pgid.data());
  mad_set_field(data, 0, IB_SA_MCM_JOIN_STATE_F, static_cast<uint32_t>(req.state));
  uint64_t mask = kMgid | kPortGid | kJoinState;
  if (method == IB_MAD_METHOD_SET) {
    // A create needs these components; a join of an existing group must
    // match them, so they are always sent.
    mad_set_field(data, 0, IB_SA_MCM_QKEY_F, req.qkey);
    mad_set_field(data, 0, IB_SA_MCM_PKEY_F, req.pkey);
    mad_set_field(data, 0, IB_SA_MCM_SL_F, req.sl);
    mad_set_field(data, 0, IB_SA_MCM_TCLASS_F, 0);
    mad_set_field(data, 0, IB_SA_MCM_FLOW_LABEL_F, 0);
    mask |= kQkey | kPkey | kSl | kTclass | kFlow;
    // MTU and rate only when asked for, as "exactly" (selector 2): the SA
    // refuses a create whose values the fabric cannot carry.
    if (req.mtu) {
      mad_set_field(data, 0, IB_SA_MCM_MTU_F, (2u << 6) | req.mtu);
      mask |= kMtuSel | kMtu;
    }
    if (req.rate) {
      mad_set_field(data, 0, IB_SA_MCM_RATE_F, (2u << 6) | req.rate);
      mask |= kRateSel | kRate;
    }
  }
  ib_rpc_t rpc{};
  rpc.mgtclass = IB_SA_CLASS;
  rpc.method = method;
  rpc.attr.id = IB_SA_ATTR_MCRECORD;
  rpc.mask = mask;
  rpc.datasz = IB_SA_DATA_SIZE;
  rpc.dataoffs = IB_SA_DATA_OFFS;
  rpc.timeout = timeout_ms_;
  ib_portid_t sm{};
  ib_portid_set(&sm, sm_lid_, 1, IB_DEFAULT_QP1_QKEY);
  MemberReply reply;
  errno = 0;
  void* p = mad_rpc(port_, &rpc, &sm, data, data);
  reply.mad_status = rpc.rstatus;
  if (!p) {
    reply.error = rpc.rstatus ? DecodeMadStatus(rpc.rstatus)
                              : std::string("no answer from the SA at LID ") + std::to_string(sm_lid_) +
                                    " within " + std::to_string(timeout_ms_) + " ms";
    return reply;
  }
  reply.ok = true;
  reply.mlid = static_cast<uint16_t>(mad_get_field(data, 0, IB_SA_MCM_MLID_F));
  mad_get_array(data, 0, IB_SA_MCM_MGID_F, reply.mgid.data());
  return reply;
}

}  // namespace ibu::mcast
