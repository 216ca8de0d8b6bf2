// `ibunion trace`: follow routes through LFTs (offline or read back).
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/groups.h"
#include "plugin/core/int_math.h"
#include "plugin/core/path_map.h"
#include "plugin/core/tables.h"
#include "plugin/core/topology/fattree.h"
#include "plugin/core/topology/mesh.h"
#include "plugin/core/topology/recognize.h"
#include "plugin/core/verify/paths.h"

namespace ibu::cli {

namespace {

constexpr const char* kUsage =
    "usage: ibunion trace NETFILE --lft FILE --from HOST --dlid LID\n"
    "       ibunion trace NETFILE --lft FILE --base-lid-load\n"
    "       ibunion trace NETFILE --lft FILE --link-sharing [--paths FILE]\n"
    "       ibunion trace NETFILE --mft FILE --mlid MLID | --groups-per-switch\n"
    "  --from HOST --dlid LID  print the route as SWITCH:OUTPORT hops (fat-tree or mesh\n"
    "                          labels when the fabric is one, node descriptions otherwise);\n"
    "                          HOST: a label (as printed), else a node description, port GUID\n"
    "                          or LID;\n"
    "                          exit status 1 unless it reaches the LID's owner (a loop,\n"
    "                          a missing entry or port, another host: said after '->')\n"
    "  --base-lid-load         routes from every host to every other host's base LID\n"
    "                          crossing each switch: 'LABEL level L routes N' (fat-trees);\n"
    "                          routes that do not arrive are left out, counted on stderr\n"
    "                          with the first of them, exit status 1\n"
    "  --link-sharing          who shares each switch-to-switch link of a fat-tree (seed 001:\n"
    "                          with one-packet buffers a link with one source, or one\n"
    "                          destination, holds up no other flow): per direction (up =\n"
    "                          toward the top level), over the links routes cross, the\n"
    "                          distinct source and destination hosts on each, mean and max;\n"
    "                          routes from every host to every other host; routes that do\n"
    "                          not arrive are left out, counted on stderr, exit status 1\n"
    "  --paths FILE            with --link-sharing: the DLID each source uses (route --paths,\n"
    "                          or the plugin's ibunion-mlid-paths.dump); without it, base LIDs\n"
    "  --mft FILE --mlid MLID  print the MLID's mask on every switch that has it:\n"
    "                          'LABEL: P P P' (P = ports set, 0 = the switch itself);\n"
    "                          exit status 1 when no switch has it\n"
    "  --mft FILE --groups-per-switch\n"
    "                          how many MLIDs each switch carries: 'LABEL level L groups N'\n"
    "                          on a fat-tree, 'LABEL groups N' otherwise (a mesh has no levels;\n"
    "                          its labels N(x,y) say where each switch is)\n"
    "  --guid2lid FILE | --lmc L  as for verify (one or the other)\n";

// The uses of trace are one at a time: options of another use were
// accepted and ignored (--from/--dlid next to --base-lid-load).
void RefuseMixedUses(const Args& args) {
  std::vector<std::string> given;
  if (args.has("--from") || args.has("--dlid")) given.push_back("--from/--dlid");
  for (const char* use : {"--base-lid-load", "--link-sharing", "--mlid", "--groups-per-switch"})
    if (args.has(use)) given.push_back(use);
  if (given.size() > 1)
    throw UsageError{given[1] + ": not with " + given[0] + " (one use of trace at a time)"};
  if (given.empty() && args.has("--paths")) throw UsageError{"--paths goes with --link-sharing"};
  // The unicast uses read the LFTs only, the multicast ones the MFTs only:
  // the other file was read (gigabytes of LFTs at thousands of hosts) and
  // ignored.
  if (given.size() != 1) return;
  const bool unicast =
      given[0] == "--from/--dlid" || given[0] == "--base-lid-load" || given[0] == "--link-sharing";
  if (unicast && args.has("--mft"))
    throw UsageError{"--mft: not with " + given[0] +
                     " (it follows the LFTs only; --mft goes with --mlid or "
                     "--groups-per-switch)"};
  if (args.has("--paths") && given[0] != "--link-sharing")
    throw UsageError{"--paths: not with " + given[0] + " (--paths goes with --link-sharing)"};
  if (!unicast && args.has("--lft"))
    throw UsageError{"--lft: not with " + given[0] +
                     " (it reads the MFTs only; --lft goes with --from/--dlid, --base-lid-load or "
                     "--link-sharing)"};
}

// The file the use reads, asked for before any file is read: `--mft` alone
// was told 'this use needs --lft FILE' after the MFTs were read.
void RequireTheUsesFile(const Args& args) {
  const char* multicast = args.has("--mlid")                ? "--mlid"
                          : args.has("--groups-per-switch") ? "--groups-per-switch"
                                                            : nullptr;
  if (multicast) {
    if (!args.has("--mft")) throw UsageError{std::string(multicast) + " needs --mft FILE"};
    return;
  }
  if (args.has("--lft")) return;
  if (args.has("--mft"))
    throw UsageError{
        "--mft goes with --mlid MLID or --groups-per-switch; routes (--from/--dlid, "
        "--base-lid-load, --link-sharing) follow --lft FILE"};
  throw UsageError{std::string("expected NETFILE and --lft FILE or --mft FILE\n") + kUsage};
}

// Switch and host names as the user knows them: fat-tree or mesh labels
// when the fabric is one, node descriptions otherwise.
class Labels {
 public:
  explicit Labels(const Fabric& f) : f_(f), known_(RecognizeTopology(f)) {}
  const FatTree* tree() const { return known_.tree ? &*known_.tree : nullptr; }

  // A switch a degraded tree's labelling left out has no label ("SW<,-1>"
  // was printed): its GUID (its node description may be another switch's
  // label, the tree being relabelled).
  std::string Switch(int sw) const {
    if (known_.tree && known_.tree->level[sw] < 0) return Hex16(f_.switches[sw].guid);
    return known_.tree   ? known_.tree->SwitchLabel(sw)
           : known_.mesh ? known_.mesh->Label(sw)
                         : f_.switches[sw].name;
  }
  // Hosts are H(x,y) after their switch N(x,y), as inspect and `topo mesh` name them.
  std::string Host(int ep) const {
    if (known_.tree) return known_.tree->HostLabel(ep);
    const int sw = f_.end_ports[ep].switch_index;
    if (known_.mesh && sw >= 0) return known_.mesh->HostLabel(sw);
    return f_.end_ports[ep].name;
  }
  // An end port by its label, else by node description, port GUID or LID
  // (as group files name members); -1 if none. Labels first: trace prints
  // them, and on a shuffled or degraded fabric a host's description can be
  // another host's label (--from 'P(122)' started at the host described so
  // and printed a route "from P(122) to P(122)"). A node description
  // several end ports share is refused, not read as the first of them.
  int FindHost(const std::string& name) const {
    int ep = known_.tree ? known_.tree->EndPortByLabel(name) : -1;
    for (int e = 0; ep < 0 && known_.mesh && e < static_cast<int>(f_.end_ports.size()); ++e)
      if (Host(e) == name) ep = e;
    if (ep < 0) ep = EndPortOfWord(f_, IndexEndPortNames(f_), name);
    return ep;
  }

 private:
  const Fabric& f_;
  const KnownTopology known_;
};

int PrintMlidMasks(const Fabric& f, const Tables& t, const Labels& labels, const Args& args) {
  const Lid mlid =
      static_cast<Lid>(ParseInt(args.get("--mlid"), "option --mlid", kMulticastLidBase, kMaxMulticastLid));
  bool any = false;
  for (size_t s = 0; s < f.switches.size(); ++s) {
    auto it = t.mft[s].groups.find(mlid);
    if (it == t.mft[s].groups.end() || it->second.none()) continue;
    any = true;
    std::printf("%s:", labels.Switch(static_cast<int>(s)).c_str());
    for (int p = 0; p <= f.switches[s].num_ports; ++p)
      if (it->second.test(p)) std::printf(" %d", p);
    std::printf("\n");
  }
  if (any) return 0;
  // An MLID of no switch printed nothing and exit 0: a typo read as an answer.
  std::fprintf(stderr, "ibunion trace: no switch of %s has MLID 0x%04x in %s\n", args.positional()[0].c_str(),
               static_cast<unsigned>(mlid), args.get("--mft").c_str());
  return 1;
}

int PrintGroupsPerSwitch(const Fabric& f, const Tables& t, const Labels& labels) {
  for (size_t s = 0; s < f.switches.size(); ++s) {
    int groups = 0;
    for (const auto& [mlid, mask] : t.mft[s].groups) groups += mask.any();
    const std::string label = labels.Switch(static_cast<int>(s));
    if (labels.tree())
      std::printf("%s level %d groups %d\n", label.c_str(), labels.tree()->level[s], groups);
    else
      std::printf("%s groups %d\n", label.c_str(), groups);
  }
  return 0;
}

int PrintBaseLidLoad(const Fabric& f, const Tables& t, const Labels& labels) {
  if (!labels.tree()) throw Error("--base-lid-load needs a fat-tree");
  const BaseLidLoadReport r = BaseLidLoad(f, t);
  for (size_t s = 0; s < f.switches.size(); ++s)
    std::printf("%s level %d routes %ld\n", labels.Switch(static_cast<int>(s)).c_str(),
                labels.tree()->level[s], r.load[s]);
  if (r.broken == 0) return 0;
  // The table above leaves them out; status 1 as for one broken route.
  const EndPort& to = f.end_ports[r.broken_to];
  int from = 0;  // a host of the first broken route, for the trace to run
  while (f.end_ports[from].switch_index != r.broken_from || from == r.broken_to) ++from;
  std::fprintf(stderr,
               "ibunion trace: %ld route(s) do not reach their base LID and are not counted above; "
               "first: from the hosts on %s to LID %u (%s), which %s (trace --from '%s' --dlid %u "
               "shows it)\n",
               r.broken, labels.Switch(r.broken_from).c_str(), static_cast<unsigned>(to.base_lid),
               labels.Host(r.broken_to).c_str(),
               r.broken_loops ? "loops" : "ends short of it or at another port", labels.Host(from).c_str(),
               static_cast<unsigned>(to.base_lid));
  return 1;
}

// Line for line what the Python helper it replaces
// (sim-harness/experiments/link-sharing) printed, as results.md quotes it.
int PrintLinkSharing(const Fabric& f, const Tables& t, const Labels& labels, const Args& args) {
  if (!labels.tree()) throw Error("--link-sharing needs a fat-tree (up and down are its levels)");
  std::unique_ptr<PathMap> paths;
  if (args.has("--paths")) {
    paths = std::make_unique<PathMap>(ReadPathMapFile(args.get("--paths"), f));
    RequireEveryPair(*paths, f, args.get("--paths"), "a missing pair would be walked on its base LID");
  }
  const LinkSharingReport r = LinkSharing(f, t, *labels.tree(), [&](int src, int dst) {
    return paths ? paths->Select(src, dst) : f.end_ports[dst].base_lid;
  });
  for (const auto& [name, d] : {std::pair{"up", r.up}, std::pair{"down", r.down}})
    std::printf(
        "%-4s links %4ld: distinct sources mean %6.1f max %4ld; distinct destinations mean %6.1f max %4ld\n",
        name, d.links, d.mean_sources, d.max_sources, d.mean_destinations, d.max_destinations);
  if (r.broken == 0) return 0;
  std::fprintf(stderr,
               "ibunion trace: %ld route(s) do not reach their DLID's owner and are not counted above; "
               "first: from %s to %s on DLID %u (trace --from '%s' --dlid %u shows it)\n",
               r.broken, labels.Host(r.broken_src).c_str(), labels.Host(r.broken_dst).c_str(),
               static_cast<unsigned>(r.broken_dlid), labels.Host(r.broken_src).c_str(),
               static_cast<unsigned>(r.broken_dlid));
  return 1;
}

// One route, --from HOST to --dlid LID; status 1 unless it reaches the LID's
// owner (a host, or port 0 of the switch whose LID it is).
int PrintRoute(const Fabric& f, const Tables& t, const Labels& labels, const Args& args) {
  if (!args.has("--from") || !args.has("--dlid"))
    throw UsageError{std::string("expected --from HOST --dlid LID or --base-lid-load\n") + kUsage};
  int src = -1;
  try {
    src = labels.FindHost(args.get("--from"));
  } catch (const Error& e) {
    throw UsageError{"--from " + args.get("--from") + ": " + e.what()};
  }
  if (src < 0) {
    // A switch's LID is a likely slip: say whose it is.
    const std::string word = args.get("--from");
    long long lid = 0;
    if (ParseInteger(word, &lid) && lid > 0 && lid <= kMaxUnicastLid) {
      const LidOwner o = f.owner(static_cast<Lid>(lid));
      if (o.valid() && o.kind == Peer::Kind::kSwitch)
        throw UsageError{"--from " + word + ": LID " + word + " is switch " + labels.Switch(o.index) +
                         "'s, not a host's; routes start at hosts"};
    }
    throw UsageError{"--from " + word + ": no such host in " + args.positional()[0] +
                     NotAnEndPortHint(f, word)};
  }
  const Lid dlid = static_cast<Lid>(ParseInt(args.get("--dlid"), "option --dlid", 1, kMaxUnicastLid));
  // A LID of nothing is the user's mistake, not a broken route of the tables.
  if (!f.owner(dlid).valid()) {
    Lid first = 1;  // a LID below the first read "its LIDs end at N"
    while (first < f.max_lid() && !f.owner(first).valid()) ++first;
    throw UsageError{"option --dlid: no end port or switch of " + args.positional()[0] + " has LID " +
                     args.get("--dlid") + " (its LIDs run from " + std::to_string(first) + " to " +
                     std::to_string(f.max_lid()) + ", with gaps where LMC leaves them)"};
  }
  const auto hops = TraceRoute(f, t, src, dlid);
  if (hops.empty()) {  // the host is cabled to no switch
    std::printf("-> nowhere: %s is not cabled to a switch\n", labels.Host(src).c_str());
    return 1;
  }
  // The route, up to where it ends or first comes back to a switch it
  // crossed: an LFT sends one DLID one way, so from there it circles for
  // ever (it was printed for 64 hops and called "nowhere").
  std::vector<bool> crossed(f.switches.size(), false);
  size_t end = 0;
  for (; end < hops.size() && !crossed[hops[end].first]; ++end) {
    crossed[hops[end].first] = true;
    const int port = hops[end].second;
    if (port == kNoPort)
      std::printf("%s:- ", labels.Switch(hops[end].first).c_str());
    else
      std::printf("%s:%d ", labels.Switch(hops[end].first).c_str(), port);
  }
  const LidOwner owner = f.owner(dlid);
  const std::string owner_name = owner.kind == Peer::Kind::kEndPort ? labels.Host(owner.index)
                                                                     : labels.Switch(owner.index);
  if (end < hops.size()) {
    std::printf("-> loop: back at %s (LID %u is %s's)\n", labels.Switch(hops[end].first).c_str(),
                static_cast<unsigned>(dlid), owner_name.c_str());
    return 1;
  }
  // A route that arrives somewhere is right only where the LID's owner is:
  // one that delivered to another host, or to a switch's own port 0, was
  // printed as if it had arrived, with status 0.
  const int last_sw = hops.back().first;
  const LftStep step = StepOf(f, t, last_sw, dlid);
  const std::string last = labels.Switch(last_sw);
  const bool arrived = EndsAtOwner(f, last_sw, step, dlid);
  switch (step.kind) {
    case LftStep::Kind::kPortZero:
      if (arrived) {
        std::printf("-> switch itself\n");
      } else {
        std::printf("-> %s itself (port 0), not LID %u's owner %s (wrong destination)\n", last.c_str(),
                    static_cast<unsigned>(dlid), owner_name.c_str());
      }
      break;
    case LftStep::Kind::kEndPort:
      if (arrived) {
        std::printf("-> %s\n", labels.Host(step.next).c_str());
      } else {
        std::printf("-> %s, not LID %u's owner %s (wrong destination)\n", labels.Host(step.next).c_str(),
                    static_cast<unsigned>(dlid), owner_name.c_str());
      }
      break;
    case LftStep::Kind::kNoEntry:
      std::printf("-> nowhere: %s has no LFT entry for LID %u (broken route)\n", last.c_str(),
                  static_cast<unsigned>(dlid));
      break;
    default:  // no such port, or no cable (a walk of TraceHopLimit hops shows a loop's repeat above)
      std::printf("-> nowhere: port %d of %s %s (broken route)\n", step.port, last.c_str(),
                  step.kind == LftStep::Kind::kNoSuchPort ? "does not exist" : "is not connected");
      break;
  }
  return arrived ? 0 : 1;
}

}  // namespace

int TraceMain(int argc, char** argv) {
  Args args(argc, argv, {"--lft", "--from", "--dlid", "--guid2lid", "--lmc", "--mft", "--mlid", "--paths"},
            {"-h", "--help", "--base-lid-load", "--link-sharing", "--groups-per-switch"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kUsage;
    return 0;
  }
  if (args.positional().size() != 1)
    throw UsageError{std::string("expected NETFILE and --lft FILE or --mft FILE\n") + kUsage};
  RefuseMixedUses(args);
  RequireTheUsesFile(args);
  Fabric f = LoadFabric(args, args.positional()[0]);
  Tables t;
  t.Resize(f);
  if (args.has("--lft")) ReadLftsFile(args.get("--lft"), f, t);
  if (args.has("--mft")) ReadMftsFile(args.get("--mft"), f, t);
  const Labels labels(f);
  if (args.has("--mlid")) return PrintMlidMasks(f, t, labels, args);
  if (args.has("--groups-per-switch")) return PrintGroupsPerSwitch(f, t, labels);
  if (args.has("--base-lid-load")) return PrintBaseLidLoad(f, t, labels);
  if (args.has("--link-sharing")) return PrintLinkSharing(f, t, labels, args);
  return PrintRoute(f, t, labels, args);
}

}  // namespace ibu::cli
