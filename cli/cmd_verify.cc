// `ibunion verify`: check tables (offline or read back from switches).
#include <iostream>

#include "cli/commands.h"
#include "plugin/core/engine.h"
#include "plugin/core/error.h"
#include "plugin/core/tables.h"
#include "plugin/core/verify/unicast.h"

namespace ibu::cli {

namespace {

constexpr const char* kUsage =
    "usage: ibunion verify NETFILE --lft FILE [options]\n"
    "  --guid2lid FILE    LIDs from an OpenSM guid2lid file (default: the net file's own,\n"
    "                     as ibnetdiscover writes them, else the generator's layout)\n"
    "  --lmc L            LMC of the generator's layout\n"
    "  --engine E         also check every entry equals what engine E computes\n"
    "  --options \"k=v\"    options of that engine\n"
    "exit status: 0 all checks pass, 1 a check failed, 2 bad input\n";

// Entries where `t` differs from the engine's own tables.
long CompareWithEngine(const Fabric& f, const Tables& t, const Args& args) {
  auto engine = MakeEngine(args.get("--engine"), SplitOptions(args.get("--options")), nullptr);
  Tables want;
  engine->RouteUnicast(f, want);
  long mismatches = 0;
  for (size_t s = 0; s < f.switches.size(); ++s)
    for (Lid lid = 1; lid <= f.max_lid(); ++lid) {
      if (!f.owner(lid).valid()) continue;
      const int have = t.lft[s].port(lid), expect = want.lft[s].port(lid);
      if (have == expect) continue;
      if (++mismatches <= 20)
        std::cout << "error: scheme mismatch: " << f.SwitchLabel(static_cast<int>(s)) << ", LID "
                  << lid << ": table says port " << have << ", " << engine->name()
                  << " says port " << expect << "\n";
    }
  std::cout << "scheme " << engine->name() << ": " << mismatches << " entries differ\n";
  return mismatches;
}

}  // namespace

int VerifyMain(int argc, char** argv) {
  Args args(argc, argv, {"--lft", "--guid2lid", "--lmc", "--engine", "--options"},
            {"-h", "--help"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kUsage;
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError{std::string("expected one NETFILE\n") + kUsage};
  if (!args.has("--lft")) throw UsageError{std::string("missing --lft FILE\n") + kUsage};
  Fabric f = LoadFabric(args, args.positional()[0]);
  Tables t;
  ReadLftsFile(args.get("--lft"), f, t);
  for (size_t s = 0; s < f.switches.size(); ++s)
    if (t.lft[s].out.empty())
      throw Error(args.get("--lft") + ": no LFT for " + f.SwitchLabel(static_cast<int>(s)));
  UnicastReport report = VerifyUnicast(f, t);
  std::cout << report.Summary(f);
  bool ok = report.ok();
  if (args.has("--engine")) ok = CompareWithEngine(f, t, args) == 0 && ok;
  std::cout << (ok ? "PASS" : "FAIL") << "\n";
  return ok ? 0 : 1;
}

}  // namespace ibu::cli
