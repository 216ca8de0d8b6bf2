#include "plugin/core/routing/xymesh.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "plugin/core/error.h"

namespace ibu {

namespace {

constexpr int kSls = 16;

void CheckMembers(const Fabric& f, const McastGroup& g) {
  const std::string group = "multicast group " + std::to_string(g.mlid);
  if (g.members.empty()) throw Error(group + " has no members");
  auto check = [&](int ep, const char* what) {
    if (ep < 0 || ep >= static_cast<int>(f.end_ports.size()) || f.end_ports[ep].switch_index < 0)
      throw Error(group + ": " + what + " index " + std::to_string(ep) +
                  " is not a cabled end port of the fabric");
  };
  for (int m : g.members) check(m, "member");
  if (g.anchor >= 0) check(g.anchor, "anchor");
}

}  // namespace

XyMeshOptions ParseXyMeshOptions(const std::vector<std::string>& words) {
  XyMeshOptions opt;
  for (const std::string& word : words) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("option '" + word + "': expected key=value");
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key.rfind("xymesh_", 0) != 0) continue;  // another engine's option
    if (key == "xymesh_vls") {
      if (value != "1" && value != "2" && value != "4")
        throw Error("option '" + word + "': expected xymesh_vls=1, 2 or 4");
      opt.vls = value[0] - '0';
    } else if (key == "xymesh_vl_mode") {
      if (value == "shared")
        opt.mode = VlMode::kShared;
      else if (value == "dedicated")
        opt.mode = VlMode::kDedicated;
      else
        throw Error("option '" + word + "': expected xymesh_vl_mode=shared or dedicated");
    } else {
      throw Error("option '" + word +
                  "': unknown key for engine xymesh (known: xymesh_vls=1|2|4, "
                  "xymesh_vl_mode=shared|dedicated)");
    }
  }
  return opt;
}

XyRouter::XyRouter(const Fabric& f, Mesh mesh, XyMeshOptions opt)
    : f_(f), mesh_(std::move(mesh)), opt_(opt) {}

int XyRouter::NextPort(int sw, int target) const {
  const Mesh& m = mesh_;
  if (m.x[target] > m.x[sw]) return m.port[sw][kEast];
  if (m.x[target] < m.x[sw]) return m.port[sw][kWest];
  if (m.y[target] > m.y[sw]) return m.port[sw][kNorth];
  if (m.y[target] < m.y[sw]) return m.port[sw][kSouth];
  return 0;
}

void XyRouter::Route(Tables& t) const {
  t.Resize(f_);
  for (size_t s = 0; s < f_.switches.size(); ++s) {
    Lft& lft = t.lft[s];
    lft.out.assign(f_.max_lid() + 1, kNoPort);
    for (const EndPort& ep : f_.end_ports) {
      if (ep.base_lid == 0 || ep.switch_index < 0) continue;
      const int port = ep.switch_index == static_cast<int>(s)
                           ? ep.switch_port
                           : NextPort(static_cast<int>(s), ep.switch_index);
      for (int j = 0; j < ep.lid_count(); ++j)
        lft.out[ep.base_lid + j] = static_cast<uint8_t>(port);
    }
    for (size_t x = 0; x < f_.switches.size(); ++x) {
      const Switch& target = f_.switches[x];
      if (target.lid == 0) continue;
      const int port = NextPort(static_cast<int>(s), static_cast<int>(x));
      for (int j = 0; j < (1 << target.lmc); ++j)
        lft.out[target.lid + j] = static_cast<uint8_t>(port);
    }
  }
}

int XyRouter::McastClasses() const { return opt_.mode == VlMode::kShared ? opt_.vls : 1; }

int XyRouter::McastClass(Lid mlid) const {
  return static_cast<int>(static_cast<unsigned>(mlid - kMulticastLidBase) % McastClasses());
}

int XyRouter::TrunkRow(Lid mlid) const {
  const int classes = McastClasses();
  return (2 * McastClass(mlid) + 1) * mesh_.Y / (2 * classes);
}

uint8_t XyRouter::McastSl(Lid mlid) const {
  // Shared mode maps SL c to VL c, so the class's SL is its VL.
  return static_cast<uint8_t>(opt_.mode == VlMode::kShared ? McastClass(mlid) : 0);
}

std::vector<std::pair<int, PortMask>> XyRouter::McastTree(const McastGroup& g) const {
  CheckMembers(f_, g);
  std::vector<int> reach;
  for (int m : g.members) reach.push_back(f_.end_ports[m].switch_index);
  if (g.anchor >= 0) reach.push_back(f_.end_ports[g.anchor].switch_index);
  std::vector<int> cols, rows;
  for (int s : reach) cols.push_back(mesh_.x[s]), rows.push_back(mesh_.y[s]);
  std::sort(cols.begin(), cols.end());
  if (cols.front() == cols.back()) {
    // One column: the segment between its ends, no turns (see xymesh.h).
    const int bottom = *std::min_element(rows.begin(), rows.end());
    return UnionTree(mesh_.SwitchAt(cols.front(), bottom), reach, g.members);
  }
  const int col =
      g.anchor >= 0 ? mesh_.x[f_.end_ports[g.anchor].switch_index] : cols[(cols.size() - 1) / 2];
  return UnionTree(mesh_.SwitchAt(col, TrunkRow(g.mlid)), reach, g.members);
}

std::vector<std::pair<int, PortMask>> XyRouter::UnionTree(int root, const std::vector<int>& reach,
                                                          const std::vector<int>& members) const {
  std::map<int, PortMask> masks;
  masks[root];  // the root is on the tree even when it is alone
  for (int target : reach) {
    for (int s = root; s != target;) {
      const int p = NextPort(s, target);
      const Peer& peer = f_.switches[s].ports[p];
      masks[s].set(p);
      masks[peer.index].set(peer.port);
      s = peer.index;
    }
  }
  for (int m : members) {
    const EndPort& ep = f_.end_ports[m];
    masks[ep.switch_index].set(ep.switch_port);
  }
  return {masks.begin(), masks.end()};
}

uint8_t XyRouter::UnicastSl(int end_port) const {
  if (opt_.mode == VlMode::kDedicated) return 0;
  const int s = f_.end_ports[end_port].switch_index;
  return static_cast<uint8_t>((mesh_.x[s] + mesh_.y[s]) % opt_.vls);
}

uint8_t XyRouter::Vl(int sw, int out_port, int sl) const {
  if (opt_.mode == VlMode::kShared) return static_cast<uint8_t>(sl % opt_.vls);
  const int d = mesh_.DirOf(sw, out_port);
  if (d == kNoDir || opt_.vls == 1) return 0;  // host and management ports: sinks
  if (opt_.vls == 2) return d == kEast || d == kNorth ? 0 : 1;
  return static_cast<uint8_t>(d);  // E 0, N 1, W 2, S 3: the MeshDir order
}

void XyRouter::RouteSl2Vl(Tables& t) const {
  t.sl2vl.resize(f_.switches.size());
  for (size_t s = 0; s < f_.switches.size(); ++s) {
    Sl2Vl& table = t.sl2vl[s];
    const int np = f_.switches[s].num_ports;
    table.Init(np);
    for (int out = 0; out <= np; ++out)
      for (int sl = 0; sl < kSls; ++sl) {
        const uint8_t vl = Vl(static_cast<int>(s), out, sl);
        for (int in = 0; in <= np; ++in) table.set(in, out, sl, vl);
      }
  }
  t.end_port_sl.assign(f_.end_ports.size(), 0);
  for (size_t e = 0; e < f_.end_ports.size(); ++e)
    if (f_.end_ports[e].switch_index >= 0) t.end_port_sl[e] = UnicastSl(static_cast<int>(e));
}

std::vector<std::string> XyRouter::Notes() const {
  std::vector<std::string> notes;
  const int origin = mesh_.SwitchAt(0, 0);
  notes.push_back("xymesh: " + std::to_string(mesh_.X) + "x" + std::to_string(mesh_.Y) +
                  " mesh, N(0,0) is " + f_.SwitchLabel(origin) + "; XY unicast");
  std::string rows;
  for (int c = 0; c < McastClasses(); ++c)
    rows += (c ? "," : "") + std::to_string((2 * c + 1) * mesh_.Y / (2 * McastClasses()));
  const std::string vls = std::to_string(opt_.vls) + " data VL" + (opt_.vls > 1 ? "s" : "");
  if (opt_.mode == VlMode::kShared)
    notes.push_back("xymesh: " + vls + ", shared: SL s on VL s mod " + std::to_string(opt_.vls) +
                    ", unicast SL (x+y) mod " + std::to_string(opt_.vls) +
                    ", multicast SL (MLID-0xC000) mod " + std::to_string(opt_.vls) +
                    " rooted on trunk row(s) " + rows);
  else
    notes.push_back("xymesh: " + vls + ", dedicated: VL by out direction" +
                    (opt_.vls == 2   ? " (E,N VL0; W,S VL1)"
                     : opt_.vls == 4 ? " (E0 N1 W2 S3)"
                                     : "") +
                    ", SL 0, multicast rooted on trunk row " + rows);
  return notes;
}

namespace {

class XyMeshEngine : public Engine {
 public:
  XyMeshEngine(XyMeshOptions opt, LogSink log) : opt_(opt), log_(std::move(log)) {}

  const char* name() const override { return "xymesh"; }

  void RouteUnicast(const Fabric& f, Tables& t) override {
    router_.reset();
    trees_.Clear();
    router_ = std::make_unique<XyRouter>(f, RecognizeMesh(f), opt_);
    if (log_)
      for (const std::string& note : router_->Notes()) log_(LogLevel::kInfo, note);
    router_->Route(t);
  }

  // Touches only this group's entries: the switches of its previous tree
  // and of its new one.
  void RouteMulticast(const Fabric& f, const McastGroup& g, Tables& t) override {
    if (!router_) throw Error("xymesh: multicast needs unicast routing first");
    trees_.Apply(f, g.mlid, router_->McastTree(g), t);
  }

  void RouteSl2Vl(const Fabric& f, Tables& t) override {
    (void)f;
    if (!router_) throw Error("xymesh: SL2VL tables need unicast routing first");
    router_->RouteSl2Vl(t);
  }

  uint8_t PathSl(const Fabric& f, Lid slid, Lid dlid) const override {
    if (!router_) return 0;
    if (dlid >= kMulticastLidBase) return router_->McastSl(dlid);
    const LidOwner o = f.owner(slid);
    if (o.kind != Peer::Kind::kEndPort) return 0;
    return router_->UnicastSl(o.index);
  }

  int DataVls() const override { return opt_.vls; }

 private:
  XyMeshOptions opt_;
  LogSink log_;
  std::unique_ptr<XyRouter> router_;
  McastTreeTables trees_;
};

}  // namespace

std::unique_ptr<Engine> MakeXyMeshEngine(const std::vector<std::string>& options, LogSink log) {
  return std::make_unique<XyMeshEngine>(ParseXyMeshOptions(options), std::move(log));
}

}  // namespace ibu
