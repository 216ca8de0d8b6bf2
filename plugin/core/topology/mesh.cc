#include "plugin/core/topology/mesh.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <queue>
#include <set>

#include "plugin/core/error.h"

namespace ibu {

namespace {

[[noreturn]] void Refuse(const std::string& where, const std::string& what,
                         const std::string& rule) {
  throw Error("not a 2-D mesh: " + where + ": " + what + " (mesh rule: " + rule + ")");
}

std::string Coord(int x, int y) { return "(" + std::to_string(x) + "," + std::to_string(y) + ")"; }

// Switch-to-switch links of every switch, in port order.
struct Links {
  std::vector<std::vector<int>> nbr;   // neighbour switch
  std::vector<std::vector<int>> port;  // local port toward it

  int PortTo(int s, int t) const {
    for (size_t i = 0; i < nbr[s].size(); ++i)
      if (nbr[s][i] == t) return port[s][i];
    return 0;
  }
  bool Linked(int s, int t) const { return PortTo(s, t) != 0; }
};

// One switch against the local rules: one host, at most 4 distinct
// neighbours, no self link.
void ScanSwitch(const Fabric& f, int s, Mesh& m, Links& l) {
  const Switch& sw = f.switches[s];
  for (int p = 1; p <= sw.num_ports; ++p) {
    const Peer& peer = sw.ports[p];
    if (peer.is_end_port()) {
      if (m.host[s] >= 0)
        Refuse(f.PortLabel(s, p),
               "second host " + f.end_ports[peer.index].name + " (the first is on port " +
                   std::to_string(m.host_port[s]) + ")",
               "every switch has exactly one host");
      m.host[s] = peer.index;
      m.host_port[s] = p;
      continue;
    }
    if (!peer.is_switch()) continue;
    if (peer.index == s)
      Refuse(f.PortLabel(s, p), "cabled back to its own switch",
             "links join two different switches");
    if (const int first = l.PortTo(s, peer.index))
      Refuse(f.PortLabel(s, p),
             "second link to " + f.SwitchLabel(peer.index) + " (the first is port " +
                 std::to_string(first) + ")",
             "at most one link between two switches");
    if (l.nbr[s].size() == 4)
      Refuse(f.PortLabel(s, p), "fifth switch link",
             "a switch has at most 4 switch neighbours, E N W S");
    l.nbr[s].push_back(peer.index);
    l.port[s].push_back(p);
  }
}

// A switch without a host is refused only when the switches do not form a
// grid (a fat-tree's upper levels): in a grid it is a host powered off or
// unplugged, and XY routes stay as they are (refusing made OpenSM fall
// back to minhop, whose mesh tables have credit loops). The refusal
// carries `no_grid`, why the switches form no grid: with a host down and
// a cable pulled, naming the host alone sent the admin to the wrong place.
void RefuseIfHostless(const Fabric& f, const Mesh& m, const Error& no_grid) {
  static const std::string kPrefix = "not a 2-D mesh: ";
  std::string why = no_grid.what();
  if (why.rfind(kPrefix, 0) == 0) why.erase(0, kPrefix.size());
  for (size_t s = 0; s < m.host.size(); ++s)
    if (m.host[s] < 0)
      Refuse(f.SwitchLabel(s), "no host, and the switches form no complete grid (" + why + ")",
             "every switch has one host; one without is taken only in a complete grid, as a host down");
}

void CheckConnected(const Fabric& f, const Links& l) {
  const int n = static_cast<int>(f.switches.size());
  std::vector<char> seen(n, 0);
  std::queue<int> q;
  seen[0] = 1;
  q.push(0);
  while (!q.empty()) {
    const int s = q.front();
    q.pop();
    for (int t : l.nbr[s])
      if (!seen[t]) seen[t] = 1, q.push(t);
  }
  for (int s = 0; s < n; ++s)
    if (!seen[s])
      Refuse(f.SwitchLabel(s), "not connected to " + f.SwitchLabel(0),
             "the switches form one connected grid");
}

// Corners in tie-break order: fewest switch links, then the
// lexicographically smallest sorted link ports, then the smallest GUID (see
// mesh.h). The first is the origin. Switches with 2 links follow those with
// fewer: when a mesh corner lost a link, its one link made it look like the
// end of a line, and only a frame from a true corner names the missing link.
std::vector<int> Corners(const Fabric& f, const Links& l) {
  const int n = static_cast<int>(f.switches.size());
  size_t dmin = 4;
  for (int s = 0; s < n; ++s) dmin = std::min(dmin, l.nbr[s].size());
  if (dmin >= 3)
    Refuse(f.SwitchLabel(0), "every switch has at least 3 switch links, so there is no corner",
           "a mesh has corners with 2 switch neighbours (1 for a line); a torus is not a mesh");
  size_t dmax = 0;
  for (int s = 0; s < n; ++s) dmax = std::max(dmax, l.nbr[s].size());
  if (dmin == 2 && dmax == 2 && n != 4)  // connected: a ring (of 4, a 2x2 mesh)
    Refuse(f.SwitchLabel(0),
           "every switch has 2 switch links: the " + std::to_string(n) + " switches form a ring",
           "a line of switches has two ends; of the rings only one of 4 switches is a mesh, 2x2");
  std::vector<std::pair<std::vector<int>, int>> keyed;
  for (int s = 0; s < n; ++s) {
    if (l.nbr[s].size() > std::max<size_t>(dmin, 2)) continue;
    std::vector<int> key = l.port[s];
    std::sort(key.begin(), key.end());
    keyed.push_back({key, s});
  }
  std::sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    if (a.first.size() != b.first.size()) return a.first.size() < b.first.size();
    if (a.first != b.first) return a.first < b.first;
    return f.switches[a.second].guid < f.switches[b.second].guid;
  });
  std::vector<int> corners;
  for (const auto& k : keyed) corners.push_back(k.second);
  return corners;
}

// One way of laying the grid out: origin corner, the neighbour taken as
// N(1,0) and the one taken as N(0,1) (-1: none, for lines).
struct Frame {
  int origin, east, north;
  bool sides_end_at_corners;  // see WalkSide
};

// Lays the grid out in one frame. `progress` survives a refusal: the
// frame that got furthest names the damage best.
class Layout {
 public:
  Layout(const Fabric& f, const Links& l, Mesh& m) : f_(f), l_(l), m_(m) {}

  // Switches placed, less the grid places the sides leave without a switch
  // (a frame whose sides went round a hole places more but fits worse).
  int progress() const { return count_ - missing_; }

  void Run(const Frame& fr) {
    const int n = static_cast<int>(f_.switches.size());
    placed_.assign(n, 0);
    count_ = 0;
    const std::vector<int> row = WalkSide(fr.origin, fr.east, fr.sides_end_at_corners);
    const std::vector<int> column = WalkSide(fr.origin, fr.north, fr.sides_end_at_corners);
    m_.X = static_cast<int>(row.size());
    m_.Y = static_cast<int>(column.size());
    // Too few switches for the sides (up to twice as many places, to bound
    // the work): the rows grow until they meet the hole, which names the
    // switch next to a missing one.
    const long places = static_cast<long>(m_.X) * m_.Y;
    missing_ = static_cast<int>(std::min<long>(std::max<long>(places - n, 0), n));
    if (places < n || places > 2L * n)
      Refuse(f_.SwitchLabel(fr.origin),
             "the sides from this corner are " + SideText(row) + " and " + SideText(column) +
                 ", but the fabric has " + std::to_string(n) + " switches",
             "an X x Y mesh has X*Y switches");
    m_.x.assign(n, 0);
    m_.y.assign(n, 0);
    m_.at.assign(places, -1);
    m_.port.assign(n, {0, 0, 0, 0});
    m_.dir.resize(n);
    for (int s = 0; s < n; ++s) m_.dir[s].assign(LastPort(s) + 1, kNoDir);
    for (int x = 0; x < m_.X; ++x) Place(row[x], x, 0);
    for (int y = 1; y < m_.Y; ++y) Place(column[y], 0, y);
    GrowRows();
    CheckGrid();
  }

 private:
  // "4 switches long (to switch ...)": where a side ends is where a
  // missing link cut it short, so the refusal names it (naming the corner
  // alone pointed away from the damage).
  std::string SideText(const std::vector<int>& side) const {
    std::string text = std::to_string(side.size()) + " switch" + (side.size() > 1 ? "es" : "") + " long";
    if (side.size() > 1) text += " (to " + f_.SwitchLabel(side.back()) + ")";
    return text;
  }

  void Place(int s, int x, int y) {
    m_.x[s] = x;
    m_.y[s] = y;
    m_.at[static_cast<size_t>(x) * m_.Y + y] = s;
  }

  // A link tried in diagnosis (MissingLinkCandidates) is on a port past the
  // switch's last.
  int LastPort(int s) const {
    int last = f_.switches[s].num_ports;
    for (int p : l_.port[s]) last = std::max(last, p);
    return last;
  }

  void Mark(int s) {
    placed_[s] = 1;
    ++count_;
  }

  // The side from `origin` through `first` (-1: none), straight on to its
  // end, or (`end_at_corner`, grids only) to the next switch with 2 links
  // or fewer: past a corner that lost a link no grid square tells a turn
  // from straight on, and the walk would go round it. A switch next to a
  // missing one has 2 links too, hence frames of both kinds.
  std::vector<int> WalkSide(int origin, int first, bool end_at_corner) {
    std::vector<int> side{origin};
    if (!placed_[origin]) Mark(origin);
    for (int prev = origin, cur = first; cur >= 0;) {
      if (placed_[cur])
        Refuse(f_.SwitchLabel(cur), "reached twice walking the side from " + f_.SwitchLabel(origin),
               "the sides of a mesh are straight lines between corners");
      Mark(cur);
      side.push_back(cur);
      if (end_at_corner && l_.nbr[cur].size() <= 2) break;
      const int next = StraightOn(prev, cur);
      prev = cur;
      cur = next;
    }
    return side;
  }

  // The switch straight on from `prev` through `cur`: a neighbour of cur
  // that shares no neighbour with prev but cur (a turn closes a grid
  // square). -1 at the end of a side. Cost O(degree^3), degree <= 4.
  int StraightOn(int prev, int cur) const {
    int found = -1;
    for (size_t i = 0; i < l_.nbr[cur].size(); ++i) {
      const int w = l_.nbr[cur][i];
      if (w == prev) continue;
      bool turn = false;
      for (int c : l_.nbr[w]) turn = turn || (c != cur && l_.Linked(prev, c));
      if (turn) continue;
      if (found >= 0)
        Refuse(f_.PortLabel(cur, l_.port[cur][i]),
               "a second link going straight on from " + f_.SwitchLabel(prev) + " (besides port " +
                   std::to_string(l_.PortTo(cur, found)) +
                   "): an extra link, or a link or switch missing nearby left the grid square that "
                   "tells a turn open",
               "a side of the mesh is a straight line of switches");
      found = w;
    }
    return found;
  }

  // Rows 1..Y-1 grow from the row below: the one unplaced neighbour of
  // N(x,y-1) is N(x,y). Column 0 comes from the walk.
  void GrowRows() {
    for (int y = 1; y < m_.Y; ++y)
      for (int x = 1; x < m_.X; ++x) {
        const int below = m_.SwitchAt(x, y - 1);
        int found = -1;
        for (size_t i = 0; i < l_.nbr[below].size(); ++i) {
          const int t = l_.nbr[below][i];
          if (placed_[t]) continue;
          if (found >= 0)
            Refuse(f_.PortLabel(below, l_.port[below][i]),
                   "a second link to the next row of the grid (besides port " +
                       std::to_string(l_.PortTo(below, found)) + ")",
                   "a switch has one neighbour in the next row");
          found = t;
        }
        if (found < 0)
          Refuse(f_.SwitchLabel(below), "no link to the next row of the grid " + MissingWhat(),
                 "every switch links to its grid neighbours");
        Mark(found);
        Place(found, x, y);
      }
  }

  std::string MissingWhat() const {
    if (missing_ == 0) return "(a missing link?)";
    return "(a missing link or switch: the sides make a " + std::to_string(m_.X) + "x" +
           std::to_string(m_.Y) + " mesh, " + std::to_string(m_.X * m_.Y) + " switches, and the fabric has " +
           std::to_string(m_.X * m_.Y - missing_) + ")";
  }

  // Every link joins grid neighbours and every pair of grid neighbours is
  // linked; records each port's direction.
  void CheckGrid() {
    static const int kDx[4] = {1, 0, -1, 0}, kDy[4] = {0, 1, 0, -1};
    for (int s = 0; s < static_cast<int>(f_.switches.size()); ++s) {
      for (size_t i = 0; i < l_.nbr[s].size(); ++i) {
        const int t = l_.nbr[s][i], p = l_.port[s][i];
        int d = 0;
        while (d < 4 && (m_.x[t] - m_.x[s] != kDx[d] || m_.y[t] - m_.y[s] != kDy[d])) ++d;
        if (d == 4)
          Refuse(f_.PortLabel(s, p),
                 "leads to " + f_.SwitchLabel(t) + ", which is not one of its grid neighbours",
                 "links join grid neighbours; no wrap-around, diagonal or skipping links");
        m_.port[s][d] = p;
        m_.dir[s][p] = static_cast<int8_t>(d);
      }
      for (int d = 0; d < 4; ++d) {
        const int nx = m_.x[s] + kDx[d], ny = m_.y[s] + kDy[d];
        if (nx < 0 || ny < 0 || nx >= m_.X || ny >= m_.Y || m_.port[s][d]) continue;
        Refuse(f_.SwitchLabel(s),
               "no link to its grid neighbour " + f_.SwitchLabel(m_.SwitchAt(nx, ny)) +
                   " (a missing link)",
               "every switch links to its grid neighbours");
      }
    }
  }

  const Fabric& f_;
  const Links& l_;
  Mesh& m_;
  std::vector<char> placed_;
  int count_ = 0;
  int missing_ = 0;  // grid places the fabric has no switch for
};

// Frames to try: the tie-break one first (lower port east; a line's odd
// port east, even north), then, only to name the damage on a broken
// fabric, other corners and the swapped axes, and the grid frames again
// with sides that go on past 2-link switches.
std::vector<Frame> Frames(const Links& l, const std::vector<int>& corners) {
  constexpr size_t kDiagnosisCorners = 8;  // bounds the work on odd fabrics
  std::vector<Frame> frames;
  for (size_t i = 0; i < corners.size() && i < kDiagnosisCorners; ++i) {
    const int c = corners[i];
    const std::vector<int>& nb = l.nbr[c];  // in port order
    if (nb.size() == 2) {
      frames.push_back({c, nb[0], nb[1], true});
      frames.push_back({c, nb[1], nb[0], true});
    } else if (nb.size() == 1 && l.port[c][0] % 2 == 0) {
      frames.push_back({c, -1, nb[0], false});
    } else {
      frames.push_back({c, nb.empty() ? -1 : nb[0], -1, false});
    }
  }
  // Grid frames again with sides walked straight on past 2-link switches.
  for (size_t i = 0, grids = frames.size(); i < grids; ++i)
    if (frames[i].sides_end_at_corners)
      frames.push_back({frames[i].origin, frames[i].east, frames[i].north, false});
  return frames;
}

// Corners and frames: the mesh, or the refusal of the frame that got
// furthest. A mesh lays out in every frame, so only the first can succeed;
// on a broken fabric the frame that got furthest before failing (Layout::
// progress) is nearest the damage, and its refusal is the one thrown.
void LayOut(const Fabric& f, const Links& l, Mesh& m) {
  const int n = static_cast<int>(f.switches.size());
  std::string best_error;
  int best_progress = -1 - n;
  for (const Frame& fr : Frames(l, Corners(f, l))) {
    Layout layout(f, l, m);
    try {
      layout.Run(fr);
      return;
    } catch (const Error& e) {
      if (layout.progress() > best_progress) {
        best_progress = layout.progress();
        best_error = e.what();
      }
    }
  }
  throw Error(best_error);
}

// Squares (4-cycles) among the links: a grid X x Y has (X-1)(Y-1), and one
// link more or less changes that by at most 2. O(links x 16).
long Squares(const Links& l) {
  long found = 0;  // each square once from each of its 4 links, both ways
  for (size_t s = 0; s < l.nbr.size(); ++s)
    for (int t : l.nbr[s])
      for (int a : l.nbr[s])
        if (a != t)
          for (int b : l.nbr[static_cast<size_t>(t)])
            if (b != static_cast<int>(s) && b != a && l.Linked(a, b)) ++found;
  return found / 8;
}

// Switches by number of switch links, 0..4.
std::array<long, 5> DegreeCounts(const Links& l) {
  std::array<long, 5> count{};
  for (const std::vector<int>& nb : l.nbr) ++count[std::min<size_t>(nb.size(), 4)];
  return count;
}

// Could `delta` more links (+1 or -1) make the switches an X x Y mesh, X,
// Y >= 2? Such a mesh has X*Y switches, 2XY - X - Y links, (X-1)(Y-1)
// squares, and 4 corners, 2(X-2) + 2(Y-2) sides and (X-2)(Y-2) inner
// switches of 2, 3 and 4 links; the link added or removed moves two
// switches by one link. Spares the searches below, a layout per candidate
// link, on fabrics with more damage: a 90x90 mesh short of 2 links has
// the link count of 75x108 plus one, but fewer squares.
bool LinksOffAGridBy(const Links& l, int n, long delta) {
  long links = 0;
  for (const std::vector<int>& nb : l.nbr) links += static_cast<long>(nb.size());
  links /= 2;
  long squares = -1;  // counted once a grid's link count matches
  const std::array<long, 5> have = DegreeCounts(l);
  for (long x = 2; x * x <= n; ++x) {
    const long y = n / x;
    if (n % x != 0 || links + delta != 2L * n - x - y) continue;
    if (squares < 0) squares = Squares(l);
    if (squares - (delta < 0 ? 0 : -2) < (x - 1) * (y - 1)) continue;
    // The grid's degree counts, moved by the link at two switches of grid
    // degrees a and b (2..4), must be the fabric's.
    const std::array<long, 5> grid{0, 0, 4, 2 * (x - 2) + 2 * (y - 2), (x - 2) * (y - 2)};
    for (int a = 2; a <= 4; ++a)
      for (int b = a; b <= 4; ++b) {
        std::array<long, 5> moved = grid;
        bool fits = true;
        for (int d : {a, b}) {
          const int to = d - static_cast<int>(delta);  // one link fewer or more than in the grid
          if (to < 0 || to > 4)
            fits = false;
          else
            --moved[static_cast<size_t>(d)], ++moved[static_cast<size_t>(to)];
        }
        if (fits && moved == have) return true;
      }
  }
  return false;
}

// Do links `l` lay out as a mesh? Returns its sides, smaller first, or
// {0, 0}. A mesh lays out in the first frame.
std::pair<int, int> MeshSides(const Fabric& f, const Links& l) {
  Mesh m;
  try {
    Layout(f, l, m).Run(Frames(l, Corners(f, l)).front());
  } catch (const Error&) {
    return {0, 0};
  }
  return {std::min(m.X, m.Y), std::max(m.X, m.Y)};
}

// ... with a link s - t added; `l` is put back as it was, as in
// MeshWithoutLink (no copy of every adjacency list per candidate).
std::pair<int, int> MeshWithLink(const Fabric& f, Links& l, int s, int t) {
  for (auto [a, b] : {std::pair{s, t}, {t, s}}) {
    l.nbr[a].push_back(b);
    l.port[a].push_back(f.switches[a].num_ports + 1);
  }
  const std::pair<int, int> sides = MeshSides(f, l);
  for (int a : {s, t}) {
    l.nbr[a].pop_back();
    l.port[a].pop_back();
  }
  return sides;
}

// The links whose addition makes the fabric a mesh, and the meshes made.
// A link of a mesh (2 x 2 or larger) is a side of a grid square, so its
// ends, with fewer than 4 switch links once it is gone, are 3 links apart
// round the square. Each candidate costs one layout: refusals only, and
// only on fabrics that fit a grid less one link (LinksOffAGridBy).
struct MissingLinks {
  std::vector<std::pair<int, int>> links;
  std::set<std::pair<int, int>> sides;
};

MissingLinks MissingLinkCandidates(const Fabric& f, const Links& l) {
  const int n = static_cast<int>(f.switches.size());
  MissingLinks found;
  if (!LinksOffAGridBy(l, n, +1)) return found;
  Links trial = l;
  for (int s = 0; s < n; ++s) {
    if (l.nbr[s].size() >= 4) continue;
    std::set<int> ends;  // 3 links from s, in GUID-independent index order
    for (int a : l.nbr[s])
      for (int b : l.nbr[a])
        for (int t : l.nbr[b])
          if (t > s && b != s && t != a && l.nbr[t].size() < 4 && !l.Linked(s, t)) ends.insert(t);
    for (int t : ends) {
      const std::pair<int, int> sides = MeshWithLink(f, trial, s, t);
      if (sides.first == 0) continue;
      found.links.push_back({s, t});
      found.sides.insert(sides);
    }
  }
  return found;
}

// A fabric that is a mesh but for one link: that link is named by both
// ends. When several links would each complete a mesh (a 2 x N mesh, whose
// missing rung leaves a ring), the cabling cannot tell which one is
// missing, and all are named rather than a guess. Returns if no single link
// completes a mesh.
void RefuseIfOneLinkShort(const Fabric& f, const Links& l) {
  const MissingLinks missing = MissingLinkCandidates(f, l);
  const char* const rule = "every switch links to its grid neighbours";
  if (missing.links.size() == 1) {
    const auto [s, t] = missing.links[0];
    Refuse(f.SwitchLabel(s), "no link to its grid neighbour " + f.SwitchLabel(t) + " (a missing link)", rule);
  }
  if (missing.links.empty()) return;
  std::string shapes, links;
  for (const auto& [x, y] : missing.sides)
    shapes += (shapes.empty() ? "" : " or ") + std::to_string(x) + "x" + std::to_string(y);
  for (const auto& [s, t] : missing.links)
    links += (links.empty() ? "" : "; ") + f.SwitchLabel(s) + " to " + f.SwitchLabel(t);
  Refuse("a missing link",
         "any one of " + std::to_string(missing.links.size()) + " links would make it a " + shapes +
             " mesh (" + links + "), and the cabling cannot tell which one is missing",
         rule);
}

// Does the fabric lay out as a mesh without its link s - t? `l` is put
// back as it was (a copy per candidate was most of the search's time).
bool MeshWithoutLink(const Fabric& f, Links& l, int s, int t) {
  struct Taken {
    int sw;
    std::ptrdiff_t at;
    int nbr, port;
  };
  Taken taken[2];
  int k = 0;
  for (auto [a, b] : {std::pair{s, t}, {t, s}}) {
    const auto i = std::find(l.nbr[a].begin(), l.nbr[a].end(), b) - l.nbr[a].begin();
    taken[k++] = {a, i, l.nbr[a][static_cast<size_t>(i)], l.port[a][static_cast<size_t>(i)]};
    l.nbr[a].erase(l.nbr[a].begin() + i);
    l.port[a].erase(l.port[a].begin() + i);
  }
  const bool mesh = MeshSides(f, l).first != 0;
  for (int j = 1; j >= 0; --j) {
    const Taken& e = taken[j];
    l.nbr[e.sw].insert(l.nbr[e.sw].begin() + e.at, e.nbr);
    l.port[e.sw].insert(l.port[e.sw].begin() + e.at, e.port);
  }
  return mesh;
}

// A fabric that is a mesh but for one extra cable (a wrap-around between
// corners, say): the walk round the sides stopped somewhere else, and its
// refusal ("reached twice walking the side...") named neither end. The
// cable is named when removing it alone leaves a mesh, unless `refusal`
// already names one of its ports. Each candidate (both ends with 3 or more
// switch links, as an extra cable's ends have) costs one layout: O(links x
// switches), refusals only, and only on fabrics whose links, squares and
// link counts per switch fit a grid plus one link (LinksOffAGridBy).
void RefuseIfOneLinkOver(const Fabric& f, const Links& l, const std::string& refusal) {
  const int n = static_cast<int>(f.switches.size());
  if (!LinksOffAGridBy(l, n, -1)) return;
  std::vector<std::pair<int, int>> extra;  // (s, index into l.nbr[s])
  Links trial = l;
  for (int s = 0; s < n; ++s)
    for (size_t i = 0; i < l.nbr[s].size(); ++i) {
      const int t = l.nbr[s][i];
      if (t > s && l.nbr[s].size() >= 3 && l.nbr[t].size() >= 3 && MeshWithoutLink(f, trial, s, t))
        extra.push_back({s, static_cast<int>(i)});
    }
  if (extra.size() != 1) return;  // none, or the cabling cannot tell which
  const auto [s, i] = extra[0];
  const int t = l.nbr[s][static_cast<size_t>(i)];
  const std::string here = f.PortLabel(s, l.port[s][static_cast<size_t>(i)]);
  const std::string there = f.PortLabel(t, l.PortTo(t, s));
  if (refusal.find(here) != std::string::npos || refusal.find(there) != std::string::npos) return;
  Refuse(here, "a link to " + there + " that no mesh of these switches has (without it they form one)",
         "no wrap-around, diagonal or skipping links");
}

}  // namespace

const char* MeshDirName(int dir) {
  static const char* const kNames[4] = {"E", "N", "W", "S"};
  return dir >= 0 && dir < 4 ? kNames[dir] : "-";
}

std::string Mesh::Label(int sw) const { return "N" + Coord(x[sw], y[sw]); }
std::string Mesh::HostLabel(int sw) const { return "H" + Coord(x[sw], y[sw]); }

Mesh RecognizeMesh(const Fabric& f) {
  const int n = static_cast<int>(f.switches.size());
  if (n == 0) throw Error("not a 2-D mesh: the fabric has no switches");
  Mesh m;
  m.host.assign(n, -1);
  m.host_port.assign(n, 0);
  Links l;
  l.nbr.resize(n);
  l.port.resize(n);
  for (int s = 0; s < n; ++s) ScanSwitch(f, s, m, l);
  try {
    CheckConnected(f, l);
  } catch (const Error& e) {
    RefuseIfHostless(f, m, e);
    throw;
  }
  // A fabric one link short of a grid is a mesh less that cable: named
  // first, whatever hosts are down.
  try {
    LayOut(f, l, m);
  } catch (const Error& e) {
    RefuseIfOneLinkShort(f, l);
    RefuseIfOneLinkOver(f, l, e.what());
    RefuseIfHostless(f, m, e);
    throw;
  }
  return m;
}

void WriteDorPortOrder(std::ostream& os, const Fabric& f, const Mesh& m) {
  os << "# OpenSM port_search_ordering_file for routing_engine dor on the " << m.X << "x" << m.Y
     << " mesh: per switch GUID, then its ports E W N S (X before Y: XY routing)\n";
  for (size_t s = 0; s < f.switches.size(); ++s) {
    char guid[24];
    std::snprintf(guid, sizeof guid, "0x%016" PRIx64, f.switches[s].guid);
    std::string line = guid;
    for (int dir : {kEast, kWest, kNorth, kSouth})
      if (m.port[s][dir]) line += " " + std::to_string(m.port[s][dir]);
    // A switch with no mesh link (1x1) has no order to give; OpenSM would
    // ignore the bare GUID anyway.
    if (line.size() > std::strlen(guid)) os << line << "\n";
  }
}

}  // namespace ibu
