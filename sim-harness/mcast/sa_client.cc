#include "sim-harness/mcast/sa_client.h"

#include <arpa/inet.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>
#include <link.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

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

// ibsim's defaults (its include/ibsim.h): the base name of its sockets, the
// UDP port of a remote ibsim, and how many client processes it serves.
constexpr const char* kIbsimDefaultSockname = "sim";
constexpr int kIbsimDefaultPort = 7070;
constexpr int kIbsimMaxClients = 10;

bool Umad2SimLoaded() {
  auto is_umad2sim = [](dl_phdr_info* info, size_t, void*) {
    return info->dlpi_name && std::strstr(info->dlpi_name, "umad2sim") ? 1 : 0;
  };
  return dl_iterate_phdr(is_umad2sim, nullptr) != 0;
}

// Where libumad2sim looks for ibsim, read from the environment as it reads
// it: IBSIM_SERVER_NAME (not empty) means UDP to that host and
// IBSIM_SERVER_PORT, otherwise the abstract Unix socket "IBSIM_SOCKNAME:ctl".
struct IbsimAddress {
  bool remote = false;
  std::string sockname, host;
  int port = kIbsimDefaultPort;

  std::string Describe() const {
    if (remote)
      return "ibsim at " + host + " UDP port " + std::to_string(port) +
             " (IBSIM_SERVER_NAME, IBSIM_SERVER_PORT)";
    const char* set = std::getenv("IBSIM_SOCKNAME");
    return "ibsim's socket '@" + sockname + ":ctl' (abstract Unix socket; " +
           (set ? "IBSIM_SOCKNAME=" + sockname : std::string("IBSIM_SOCKNAME unset, so 'sim'")) + ")";
  }
};

IbsimAddress IbsimFromEnvironment() {
  IbsimAddress a;
  const char* sockname = std::getenv("IBSIM_SOCKNAME");
  const char* host = std::getenv("IBSIM_SERVER_NAME");
  const char* port = std::getenv("IBSIM_SERVER_PORT");
  a.sockname = sockname ? sockname : kIbsimDefaultSockname;
  a.remote = host && *host;
  if (a.remote) a.host = host;
  if (port) a.port = std::atoi(port);  // as libumad2sim reads it
  return a;
}

// libumad2sim retries a refused connection to ibsim's control socket every
// 2 s, forever: with no ibsim the command hung inside mad_rpc_open_port. So
// the socket is tried here first, for up to 2 s (an ibsim still starting),
// and nothing serving it is an error naming it. Only a refusal is ours to
// judge; other failures are left to libumad2sim.
void CheckLocalIbsim(const IbsimAddress& a) {
  // The address as ibsim binds it: sun_path[0] = 0 (the abstract
  // namespace), the name, and its terminating 0, which ibsim counts in.
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string name = a.sockname + ":ctl";
  const size_t n = std::min(name.size(), sizeof addr.sun_path - 2);
  std::memcpy(addr.sun_path + 1, name.data(), n);
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n + 1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (;;) {
    const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    const int r = connect(fd, reinterpret_cast<const sockaddr*>(&addr), len);
    const int err = errno;
    close(fd);
    if (r == 0 || err != ECONNREFUSED) return;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw Error("ibsim is not reachable: nothing serves " + a.Describe() +
              ". Start ibsim, or run under `fabric-run --exec`, which exports its run's IBSIM_SOCKNAME");
}

// A remote ibsim is not probed (UDP has no connection to refuse; one that
// refuses ends in the attach guard below), but a host name that does not
// resolve made libumad2sim exit with status 255.
void CheckRemoteIbsim(const IbsimAddress& a) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  const int r = getaddrinfo(a.host.c_str(), nullptr, &hints, &res);
  if (res) freeaddrinfo(res);
  if (r != 0)
    throw Error("ibsim is not reachable: IBSIM_SERVER_NAME '" + a.host + "' does not resolve (" +
                gai_strerror(r) + ")");
}

// libumad2sim ends the process with exit(-1), status 255, when ibsim
// refuses to attach it (SIM_HOST names no node, every client slot is taken)
// or a remote ibsim does not answer, saying only "connect failed". While
// the port opens, an atexit handler turns that exit into an error that
// names SIM_HOST and ibsim, and the CLI's status for a port that does not
// open, 2. A fixed buffer: no destructor can run before the handler.
char g_attach_failure[1024];

void ReportAttachFailure() {
  if (!g_attach_failure[0]) return;
  std::fflush(stdout);
  std::fputs(g_attach_failure, stderr);
  std::_Exit(2);  // exit() again from an atexit handler is undefined
}

std::string AttachFailureMessage(const IbsimAddress& a) {
  const char* host = std::getenv("SIM_HOST");
  std::string why = host ? "no node of its fabric has that node name or node description, or " : "";
  why += "all " + std::to_string(kIbsimMaxClients) + " of its client slots are taken";
  if (a.remote) why += ", or nothing answers there";
  const std::string who =
      host ? "at SIM_HOST='" + std::string(host) + "'"
           : "(SIM_HOST unset: at ibsim's default node; SIM_HOST or --sim-host chooses one)";
  return "ibunion: " + a.Describe() + " refused to attach this process " + who + ": " + why +
         " (ibsim's own log says which)\n";
}

// The NodeDescription of the local port's node (directed route, empty
// path: works before any SM has assigned LIDs), quoted; or "(unknown)".
std::string LocalNodeDescription(::ibmad_port* port, int timeout_ms) {
  ib_portid_t self{};
  uint8_t data[IB_SMP_DATA_SIZE] = {};
  if (!smp_query_via(data, &self, IB_ATTR_NODE_DESC, 0, timeout_ms, port)) return "(unknown)";
  const char* text = reinterpret_cast<const char*>(data);
  return "'" + std::string(text, strnlen(text, sizeof data)) + "'";
}

// The local port's state when it is not Active ("Down", "Initialize",
// "Armed"; PortInfo by directed route, empty path), else "": a lost MAD
// from a port whose link is down has nothing to do with the way to the SA.
std::string InactiveLocalPortState(::ibmad_port* port, int portnum, int timeout_ms) {
  ib_portid_t self{};
  uint8_t data[IB_SMP_DATA_SIZE] = {};
  if (!smp_query_via(data, &self, IB_ATTR_PORT_INFO, portnum, timeout_ms, port)) return "";
  static const char* const kStates[] = {"(no change)", "Down", "Initialize", "Armed", "Active"};
  const uint32_t state = mad_get_field(data, 0, IB_PORT_STATE_F);
  if (state == 4) return "";
  return state < 4 ? kStates[state] : "state " + std::to_string(state);
}

// Under ibsim, which node the client acts from, for errors: SIM_HOST's, or
// with SIM_HOST unset ibsim's default node, which the user never chose.
std::string SimNodeNote(::ibmad_port* port, int timeout_ms) {
  if (!Umad2SimLoaded()) return "";
  if (const char* host = std::getenv("SIM_HOST"))
    return " (under ibsim at SIM_HOST='" + std::string(host) + "')";
  return " (under ibsim with SIM_HOST unset, so at ibsim's default node " +
         LocalNodeDescription(port, timeout_ms) + "; SIM_HOST or --sim-host chooses the node)";
}

}  // namespace

::ibmad_port* OpenLocalPort(const std::string& ca, int port, int* classes, int nclasses) {
  char* name = ca.empty() ? nullptr : const_cast<char*>(ca.c_str());
  if (!Umad2SimLoaded()) return mad_rpc_open_port(name, port, classes, nclasses);
  const IbsimAddress a = IbsimFromEnvironment();
  if (a.remote)
    CheckRemoteIbsim(a);
  else
    CheckLocalIbsim(a);
  static const bool registered = std::atexit(ReportAttachFailure) == 0;
  (void)registered;
  std::snprintf(g_attach_failure, sizeof g_attach_failure, "%s", AttachFailureMessage(a).c_str());
  ::ibmad_port* p = mad_rpc_open_port(name, port, classes, nclasses);
  g_attach_failure[0] = 0;
  return p;
}

namespace {

// The CAs umad lists, for a message ("none" when it lists none).
std::string CaNames() {
  char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
  const int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? ", " : "") + std::string(names[i]);
  return out.empty() ? "none" : out;
}

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
  const unsigned sa = SaStatus(status);
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
  port_ = OpenLocalPort(ca, port, classes, 3);
  if (!port_) {
    const std::string which = "cannot open local IB port " + (ca.empty() ? std::string("(first CA)") : ca) +
                              " port " + std::to_string(port);
    // Under libumad2sim ibsim answered already (OpenLocalPort checks): the
    // CA or port is what is wrong, and the hint about LD_PRELOAD misled.
    if (Umad2SimLoaded()) throw Error(which + ": no such CA or port here (CAs: " + CaNames() + ")");
    throw Error(which + " (under ibsim: is LD_PRELOAD=" + Umad2SimPath() + " set and ibsim running?)");
  }
  ib_portid_t self{};
  ibmad_gid_t gid;
  int portnum = 0;
  if (ib_resolve_self_via(&self, &portnum, &gid, port_) < 0) {
    const std::string note = SimNodeNote(port_, timeout_ms_);
    mad_rpc_close_port(port_);
    throw Error("cannot query the local port's GID (is the port active?)" + note);
  }
  std::memcpy(port_gid_.data(), gid, 16);
  portnum_ = portnum;
  ib_portid_t sm{};
  if (ib_resolve_smlid_via(&sm, timeout_ms_, port_) < 0 || !sm.lid) {
    const std::string note = SimNodeNote(port_, timeout_ms_);
    mad_rpc_close_port(port_);
    throw Error("no subnet manager known to the local port (SM LID is 0)" + note);
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

namespace {

// MCMemberRecord's MTU and rate are 6-bit values under a 2-bit selector in
// the same byte; libibmad's field is the value alone (0x84 written reads
// back as 0x04) and has none for the selector, so a selector packed into
// the value was dropped and went out as 0, "greater than". The byte is
// found by writing the field into a blank record.
void SetSelected(uint8_t* data, enum MAD_FIELDS field, uint32_t value, uint32_t selector) {
  uint8_t probe[IB_SA_DATA_SIZE] = {};
  mad_set_field(probe, 0, field, 0x3f);
  const uint8_t* byte = std::find_if(probe, probe + sizeof probe, [](uint8_t b) { return b != 0; });
  mad_set_field(data, 0, field, value);
  uint8_t& target = data[byte - probe];
  target = static_cast<uint8_t>((target & 0x3f) | (selector << 6));
}

constexpr uint32_t kExactly = 2;  // selector: exactly the value given

}  // namespace

std::vector<std::string> Mismatches(const MemberRequest& req, const GroupParams& group) {
  std::vector<std::string> out;
  auto differ = [&out](bool given, bool match, unsigned want, unsigned has, const char* what,
                       const char* option, bool hex) {
    if (!given || match) return;
    auto text = [hex](unsigned v) {
      char buf[16];
      std::snprintf(buf, sizeof buf, hex ? "0x%x" : "%u", v);
      return std::string(buf);
    };
    out.push_back(std::string("the group's ") + what + " is " + text(has) + ", not " + option + " " +
                  text(want));
  };
  const bool pkeys_match = (req.pkey & 0x7fff) == (group.pkey & 0x7fff) && ((req.pkey | group.pkey) & 0x8000);
  differ(req.given & kGivenQkey, req.qkey == group.qkey, req.qkey, group.qkey, "Q_Key", "--qkey", true);
  differ(req.given & kGivenPkey, pkeys_match, req.pkey, group.pkey, "P_Key", "--pkey", true);
  differ(req.given & kGivenSl, req.sl == group.sl, req.sl, group.sl, "SL", "--sl", false);
  differ(req.mtu != 0, req.mtu == group.mtu, req.mtu, group.mtu, "MTU", "--mtu", false);
  differ(req.rate != 0, req.rate == group.rate, req.rate, group.rate, "rate", "--rate", false);
  return out;
}

// Asked first, so that a new group's first join goes out as a create. A
// join without the create's components was refused for a group not there
// yet, and OpenSM logged that as an error (ERR 1B11) although the create
// sent next succeeded: one error line per group an administrator made.
MemberReply SaClient::Join(const MemberRequest& req) {
  if (!req.join_as_is || req.mgid == Gid{}) return Call(IB_MAD_METHOD_SET, req, true);
  MemberReply r;
  GroupParams params;
  const GroupFound found = FindGroup(req.mgid, &params, &r.error);
  // Unanswered: a join would wait as long again for the same answer.
  if (!r.error.empty()) return r;
  r = Call(IB_MAD_METHOD_SET, req, found == GroupFound::kNo);
  // Insufficient components: no such group after all (it went after the
  // query, or the SA answered the query with another status).
  if (!r.ok && found != GroupFound::kNo && SaStatus(r.mad_status) == kSaInsufficientComponents)
    r = Call(IB_MAD_METHOD_SET, req, true);
  // A create refused for its values: another client may have made the
  // group since the query, with other ones; joined as it is, if so (asked
  // again first: a join of a group still missing is an error in its log).
  const bool may_create = req.state == JoinState::kFull || req.state == JoinState::kSendOnlyFull;
  std::string no_answer;
  if (!r.ok && found == GroupFound::kNo && may_create && SaStatus(r.mad_status) == kSaRequestInvalid &&
      FindGroup(req.mgid, &params, &no_answer) == GroupFound::kYes && Mismatches(req, params).empty()) {
    MemberReply as_is = Call(IB_MAD_METHOD_SET, req, false);
    as_is.group = GroupFound::kYes;
    as_is.params = params;
    return as_is;
  }
  r.group = found;
  r.params = params;
  return r;
}

GroupFound SaClient::FindGroup(const Gid& mgid, GroupParams* params, std::string* no_answer) {
  uint8_t data[IB_SA_DATA_SIZE] = {};
  Gid g = mgid;
  mad_set_array(data, 0, IB_SA_MCM_MGID_F, g.data());
  uint32_t status = 0;
  std::string error;
  if (Rpc(IB_MAD_METHOD_GET, IB_SA_ATTR_MCRECORD, kMgid, data, &status, &error)) {
    params->qkey = mad_get_field(data, 0, IB_SA_MCM_QKEY_F);
    params->pkey = static_cast<uint16_t>(mad_get_field(data, 0, IB_SA_MCM_PKEY_F));
    params->sl = static_cast<uint8_t>(mad_get_field(data, 0, IB_SA_MCM_SL_F));
    params->mtu = static_cast<uint8_t>(mad_get_field(data, 0, IB_SA_MCM_MTU_F) & 0x3f);
    params->rate = static_cast<uint8_t>(mad_get_field(data, 0, IB_SA_MCM_RATE_F) & 0x3f);
    return GroupFound::kYes;
  }
  if (status == 0) *no_answer = error;
  return SaStatus(status) == kSaNoRecords ? GroupFound::kNo : GroupFound::kUnknown;
}

MemberReply SaClient::Leave(const MemberRequest& req) { return Call(IB_MAD_METHOD_DELETE, req, false); }

MemberReply SaClient::Call(int method, const MemberRequest& req, bool all_components) {
  uint8_t data[IB_SA_DATA_SIZE] = {};
  Gid mgid = req.mgid;
  mad_set_array(data, 0, IB_SA_MCM_MGID_F, mgid.data());
  Gid pgid = req.port_gid == Gid{} ? port_gid_ : req.port_gid;
  mad_set_array(data, 0, IB_SA_MCM_PORTGID_F, pgid.data());
  mad_set_field(data, 0, IB_SA_MCM_JOIN_STATE_F, static_cast<uint32_t>(req.state));
  uint64_t mask = kMgid | kPortGid | kJoinState;
  if (method == IB_MAD_METHOD_SET) {
    // A create needs these components; a join of an existing group must
    // match those it sends (Join says which).
    mad_set_field(data, 0, IB_SA_MCM_QKEY_F, req.qkey);
    mad_set_field(data, 0, IB_SA_MCM_PKEY_F, req.pkey);
    mad_set_field(data, 0, IB_SA_MCM_SL_F, req.sl);
    mad_set_field(data, 0, IB_SA_MCM_TCLASS_F, 0);
    mad_set_field(data, 0, IB_SA_MCM_FLOW_LABEL_F, 0);
    if (all_components) mask |= kQkey | kPkey | kSl | kTclass | kFlow;
    if (req.given & kGivenQkey) mask |= kQkey;
    if (req.given & kGivenPkey) mask |= kPkey;
    if (req.given & kGivenSl) mask |= kSl;
    // MTU and rate only when asked for, as "exactly": the SA refuses a
    // create whose values the fabric cannot carry.
    if (req.mtu) {
      SetSelected(data, IB_SA_MCM_MTU_F, req.mtu, kExactly);
      mask |= kMtuSel | kMtu;
    }
    if (req.rate) {
      SetSelected(data, IB_SA_MCM_RATE_F, req.rate, kExactly);
      mask |= kRateSel | kRate;
    }
  }
  MemberReply reply;
  if (!Rpc(method, IB_SA_ATTR_MCRECORD, mask, data, &reply.mad_status, &reply.error)) return reply;
  reply.ok = true;
  reply.mlid = static_cast<uint16_t>(mad_get_field(data, 0, IB_SA_MCM_MLID_F));
  mad_get_array(data, 0, IB_SA_MCM_MGID_F, reply.mgid.data());
  return reply;
}

PathReply SaClient::Path(uint16_t slid, uint16_t dlid) {
  constexpr uint64_t kDlid = 1ULL << 4, kSlid = 1ULL << 5;  // PathRecord components (IBA 15.2.5.16)
  uint8_t data[IB_SA_DATA_SIZE] = {};
  mad_set_field(data, 0, IB_SA_PR_SLID_F, slid);
  mad_set_field(data, 0, IB_SA_PR_DLID_F, dlid);
  PathReply reply;
  if (!Rpc(IB_MAD_METHOD_GET, IB_SA_ATTR_PATHRECORD, kSlid | kDlid, data, &reply.mad_status, &reply.error))
    return reply;
  reply.ok = true;
  reply.sl = static_cast<uint8_t>(mad_get_field(data, 0, IB_SA_PR_SL_F));
  return reply;
}

bool SaClient::Rpc(int method, int attr, uint64_t mask, uint8_t* data, uint32_t* status, std::string* error) {
  ib_rpc_t rpc{};
  rpc.mgtclass = IB_SA_CLASS;
  rpc.method = method;
  rpc.attr.id = attr;
  rpc.mask = mask;
  rpc.datasz = IB_SA_DATA_SIZE;
  rpc.dataoffs = IB_SA_DATA_OFFS;
  rpc.timeout = timeout_ms_;
  ib_portid_t sm{};
  ib_portid_set(&sm, sm_lid_, 1, IB_DEFAULT_QP1_QKEY);
  errno = 0;
  const auto t0 = std::chrono::steady_clock::now();
  void* p = mad_rpc(port_, &rpc, &sm, data, data);
  *status = rpc.rstatus;
  if (p) return true;
  if (rpc.rstatus) {
    *error = DecodeMadStatus(rpc.rstatus);
    return false;
  }
  const long waited = static_cast<long>(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  *error = "no answer from the SA at LID " + std::to_string(sm_lid_);
  // Given up before the timeout: the request or its answer was dropped on
  // the way, and the message said it had waited the whole timeout.
  const std::string local = InactiveLocalPortState(port_, portnum_, timeout_ms_);
  if (!local.empty())
    *error +=
        ": the local port is " + local + ", not Active (its link is down, or the SM has not brought it up)";
  else if (waited >= timeout_ms_)
    *error += " within " + std::to_string(timeout_ms_) + " ms";
  else
    *error +=
        " (the MAD was lost after " + std::to_string(waited) + " ms, before the " +
        std::to_string(timeout_ms_) + " ms timeout" +
        (Umad2SimLoaded() ? std::string(": ibsim forwards a LID-routed MAD over at most 16 switches") : "") +
        ")";
  return false;
}

}  // namespace ibu::mcast
