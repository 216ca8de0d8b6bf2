// `ibunion mcjoin join|leave MGID`: multicast membership through the SA.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/int_math.h"
#include "sim-harness/mcast/sa_client.h"

namespace ibu::cli {

namespace {

constexpr const char* kUsage =
    "usage: ibunion mcjoin join|leave MGID [options]\n"
    "  MGID               multicast GID (ff..) in IPv6 notation, e.g. ff12:401b::1\n"
    "                     (join with :: lets the SA pick one)\n"
    "  --state S          full (default), sendonly, nonmember or sendonlyfull (IBA 1.3's\n"
    "                     SendOnlyFullMember: sends only, and like full it may create the group)\n"
    "  --qkey Q --pkey P --sl S   group parameters, join only: a new group's (defaults 0x80010000,\n"
    "                     0xffff, 0); an existing group is joined as it is, and those given must match it\n"
    "  --mtu M --rate R   exact MTU / rate (IB encodings), join only; default: the SA chooses\n"
    "  --ca NAME --port N local HCA and port (default: the first)\n"
    "  --sim-host NAME    under ibsim: the simulated node to act from (sets SIM_HOST;\n"
    "                     with neither, ibsim picks its default node)\n"
    "  --port-guid 0xG    act for another port (proxy join/leave; the SA requires a shared P_Key)\n"
    "  --timeout MS       SA answer timeout (default 1000)\n"
    "prints 'mlid 0xC0NN' (and 'mgid ...' when the SA assigned it); exit 0 on success,\n"
    "1 when the SA refused (its status decoded) or did not answer, 2 on bad usage or no port (under ibsim:\n"
    "ibsim not serving its socket, or refusing SIM_HOST).\n"
    "Under ibsim run it with IBSIM_SOCKNAME of the run and the full path of libumad2sim.so\n"
    "($IBUNION_UMAD2SIM inside fabric-run --exec): LD_PRELOAD=";

// The usage, with the libumad2sim.so configure found (one place names it).
std::string Usage() { return kUsage + mcast::Umad2SimPath() + "\n"; }

mcast::JoinState ParseState(const std::string& s) {
  if (s == "full") return mcast::JoinState::kFull;
  if (s == "sendonly") return mcast::JoinState::kSendOnly;
  if (s == "nonmember") return mcast::JoinState::kNonMember;
  if (s == "sendonlyfull") return mcast::JoinState::kSendOnlyFull;
  throw UsageError{"option --state: expected full, sendonly, nonmember or sendonlyfull, got '" + s + "'"};
}

// What "request invalid" most likely means here: the SA says no more (its
// log does), and the usual causes are the caller's to fix.
std::string RefusalHint(bool join, const mcast::MemberRequest& req, const mcast::MemberReply& r) {
  if (mcast::SaStatus(r.mad_status) != mcast::kSaRequestInvalid) return "";
  const mcast::JoinState state = req.state;
  if (join && r.group == mcast::GroupFound::kYes) {
    std::string mismatches;
    for (const std::string& m : mcast::Mismatches(req, r.params))
      mismatches += (mismatches.empty() ? "" : "; ") + m;
    if (!mismatches.empty()) return " (" + mismatches + ": an existing group is joined with its own values)";
  }
  if (!join)
    return " (a leave must name a group the port is in, with a join state it joined with: --state; the SM's "
           "log "
           "says which)";
  if (state != mcast::JoinState::kFull && state != mcast::JoinState::kSendOnlyFull &&
      r.group != mcast::GroupFound::kYes) {
    if (r.group == mcast::GroupFound::kNo)
      return " (no such group yet, and only a full or send-only full member creates one)";
    return " (only a full or send-only full member creates a group: does the MGID exist yet? the SM's log "
           "says)";
  }
  return " (a value given that the group, the port or the fabric does not fit: Q_Key, P_Key, SL, MTU, rate, "
         "--port-guid? the SM's log says which)";
}

// A port GUID by the core's one rule, as ibstat and ibnetdiscover print it:
// 0x and 1..16 hex digits (strtoull's base 0 took decimal and octal too).
uint64_t ParsePortGuid(const std::string& text) {
  unsigned long long v = 0;
  if (!ParseHexGuid(text, &v) || v == 0)
    throw UsageError{
        "option --port-guid: expected a port GUID, 0x and 1..16 hex digits (not zero) such as "
        "0x0002c90300000001, got '" +
        text + "'"};
  return v;
}

// The group's MGID: a multicast GID (first byte 0xff, as the IBA defines
// one), or for a join :: so that the SA assigns one. Refused here, before
// any port is opened: the SA would only answer "request invalid".
mcast::Gid ParseMgid(const std::string& text, bool join) {
  const mcast::Gid g = mcast::ParseGid(text);
  if (g == mcast::Gid{} && !join)
    throw UsageError{"MGID '" + text +
                     "': a leave names the group's MGID (:: asks the SA for a new one, join only)"};
  if (g != mcast::Gid{} && g[0] != 0xff)
    throw UsageError{"MGID '" + text +
                     "': expected a multicast GID, ff followed by flags and scope such as ff12:401b::1" +
                     (join ? std::string(" (or :: to let the SA assign one)") : "")};
  return g;
}

// A leave sends only MGID, port and join state: group parameters given
// with it would be ignored, so they are refused by name.
void RefuseGroupParametersOnLeave(const Args& args) {
  for (const char* o : {"--qkey", "--pkey", "--sl", "--mtu", "--rate"})
    if (args.has(o))
      throw UsageError{std::string(o) + ": only with join (a leave sends MGID, port and --state)"};
}

}  // namespace

int McJoinMain(int argc, char** argv) {
  Args args(argc, argv,
            {"--state", "--qkey", "--pkey", "--sl", "--mtu", "--rate", "--ca", "--port",
             "--sim-host", "--timeout", "--port-guid"},
            {"-h", "--help"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << Usage();
    return 0;
  }
  const auto& pos = args.positional();
  if (!pos.empty() && pos[0] != "join" && pos[0] != "leave")
    throw UsageError{"unknown verb '" + pos[0] + "': expected join or leave\n" + Usage()};
  if (pos.size() > 2) throw UsageError{"unexpected argument '" + pos[2] + "' after the MGID\n" + Usage()};
  if (pos.size() != 2) throw UsageError{"expected join|leave and an MGID\n" + Usage()};
  const bool join = pos[0] == "join";
  if (!join) RefuseGroupParametersOnLeave(args);
  mcast::MemberRequest req;
  req.mgid = ParseMgid(pos[1], join);
  req.state = ParseState(args.get("--state", "full"));
  req.qkey = static_cast<uint32_t>(args.integer("--qkey", req.qkey, 0, 0xffffffffL));
  req.pkey = static_cast<uint16_t>(args.integer("--pkey", req.pkey, 0, 0xffff));
  req.sl = static_cast<uint8_t>(args.integer("--sl", req.sl, 0, 15));
  // A join takes an existing group as it is; the values given must match it.
  req.join_as_is = true;
  req.given = (args.has("--qkey") ? mcast::kGivenQkey : 0) | (args.has("--pkey") ? mcast::kGivenPkey : 0) |
              (args.has("--sl") ? mcast::kGivenSl : 0);
  req.mtu = static_cast<uint8_t>(args.integer("--mtu", 0, 1, 5));
  req.rate = static_cast<uint8_t>(args.integer("--rate", 0, 2, 63));
  // Read before the SA is opened: a bad GUID is bad usage, with or without a port.
  const uint64_t proxy = args.has("--port-guid") ? ParsePortGuid(args.get("--port-guid")) : 0;
  if (args.has("--sim-host")) setenv("SIM_HOST", args.get("--sim-host").c_str(), 1);
  mcast::SaClient sa(args.get("--ca"), static_cast<int>(args.integer("--port", 0, 0, 254)),
                     static_cast<int>(args.integer("--timeout", 1000, 1, 600000)));
  if (proxy != 0) req.port_gid = sa.GidOfPort(proxy);
  mcast::MemberReply r = join ? sa.Join(req) : sa.Leave(req);
  if (!r.ok) {
    std::cerr << "ibunion mcjoin " << pos[0] << " " << pos[1] << " from port 0x" << std::hex << sa.port_guid()
              << std::dec << ": " << r.error << RefusalHint(join, req, r) << "\n";
    return 1;
  }
  if (!join) {
    std::printf("left %s\n", pos[1].c_str());
    return 0;
  }
  std::printf("mlid 0x%04X\n", r.mlid);
  if (req.mgid == mcast::Gid{}) std::printf("mgid %s\n", mcast::FormatGid(r.mgid).c_str());
  return 0;
}

}  // namespace ibu::cli
