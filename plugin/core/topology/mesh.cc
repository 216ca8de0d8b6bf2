#include "plugin/core/topology/mesh.h"

#include <algorithm>
#include <queue>

#include "plugin/core/error.h"

namespace ibu {

namespace {

[[noreturn]] void Refuse(const std::string& where, const std::string& what,
                         const std::string& rule) {
  throw Error("not a 2-D mesh: " + where + ": " + what + " (mesh rule: " + rule + ")");
}

std::string Coord(int x, int y) {
  return "(" + std::to_string(x) + "," + std::to_string(y) + ")";
}

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
  if (m.host[s] < 0)
    Refuse(f.SwitchLabel(s), "no host", "every switch has exactly one host");
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

// The origin corner: fewest switch links, then the lexicographically
// smallest sorted link ports, then the smallest GUID (see mesh.h).
int PickOrigin(const Fabric& f, const Links& l) {
  const int n = static_cast<int>(f.switches.size());
  size_t dmin = 4;
  for (int s = 0; s < n; ++s) dmin = std::min(dmin, l.nbr[s].size());
  if (dmin >= 3)
    Refuse(f.SwitchLabel(0), "every switch has at least 3 switch links, so there is no corner",
           "a mesh has corners with 2 switch neighbours (1 for a line); a torus is not a mesh");
  int best = -1;
  std::vector<int> best_key;
  for (int s = 0; s < n; ++s) {
    if (l.nbr[s].size() != dmin) continue;
    std::vector<int> key = l.port[s];
    std::sort(key.begin(), key.end());
    if (best < 0 || key < best_key ||
        (key == best_key && f.switches[s].guid < f.switches[best].guid)) {
      best = s;
      best_key = key;
    }
  }
  return best;
}

// The switch straight on from `prev` through `cur`: a neighbour of cur that
// shares no neighbour with prev but cur (a turn closes a grid square).
// -1 at the end of a side. Cost O(degree^3), degree <= 4.
int StraightOn(const Fabric& f, const Links& l, int prev, int cur) {
  int found = -1;
  for (size_t i = 0; i < l.nbr[cur].size(); ++i) {
    const int w = l.nbr[cur][i];
    if (w == prev) continue;
    bool turn = false;
    for (int c : l.nbr[w]) turn = turn || (c != cur && l.Linked(prev, c));
    if (turn) continue;
    if (found >= 0)
      Refuse(f.PortLabel(cur, l.port[cur][i]),
             "a second link going straight on from " + f.SwitchLabel(prev) + " (besides port " +
                 std::to_string(l.PortTo(cur, found)) + ")",
             "a side of the mesh is a straight line of switches");
    found = w;
  }
  return found;
}

// The side from `origin` through `first` (-1: a lone switch), straight on
// to its end.
std::vector<int> WalkSide(const Fabric& f, const Links& l, int origin, int first,
                          std::vector<char>& placed) {
  std::vector<int> side{origin};
  placed[origin] = 1;
  for (int prev = origin, cur = first; cur >= 0;) {
    if (placed[cur])
      Refuse(f.SwitchLabel(cur), "reached twice walking the side from " + f.SwitchLabel(origin),
             "the sides of a mesh are straight lines between corners");
    placed[cur] = 1;
    side.push_back(cur);
    const int next = StraightOn(f, l, prev, cur);
    prev = cur;
    cur = next;
  }
  return side;
}

void Place(Mesh& m, int s, int x, int y) {
  m.x[s] = x;
  m.y[s] = y;
  m.at[static_cast<size_t>(x) * m.Y + y] = s;
}

// Rows 1..Y-1 grow north from the row below: the one unplaced neighbour of
// N(x,y-1) is N(x,y). Column 0 is already known from the walk.
void GrowRows(const Fabric& f, const Links& l, const std::vector<int>& column, Mesh& m,
              std::vector<char>& placed) {
  for (int y = 1; y < m.Y; ++y) {
    Place(m, column[y], 0, y);
    for (int x = 1; x < m.X; ++x) {
      const int below = m.SwitchAt(x, y - 1);
      int found = -1;
      for (size_t i = 0; i < l.nbr[below].size(); ++i) {
        const int t = l.nbr[below][i];
        if (placed[t]) continue;
        if (found >= 0)
          Refuse(f.PortLabel(below, l.port[below][i]),
                 "a second unplaced neighbour north of " + m.Label(below),
                 "a switch has one north neighbour");
        found = t;
      }
      if (found < 0)
        Refuse(f.SwitchLabel(below) + " at " + Coord(x, y - 1),
               "no link to a switch of row " + std::to_string(y) + " (a missing link north)",
               "every switch below the top row links north");
      placed[found] = 1;
      Place(m, found, x, y);
    }
  }
}

// Every link joins grid neighbours and every pair of grid neighbours is
// linked; records each port's direction.
void CheckGrid(const Fabric& f, const Links& l, Mesh& m) {
  static const int kDx[4] = {1, 0, -1, 0}, kDy[4] = {0, 1, 0, -1};
  for (int s = 0; s < static_cast<int>(f.switches.size()); ++s) {
    for (size_t i = 0; i < l.nbr[s].size(); ++i) {
      const int t = l.nbr[s][i], p = l.port[s][i];
      int d = 0;
      while (d < 4 && (m.x[t] - m.x[s] != kDx[d] || m.y[t] - m.y[s] != kDy[d])) ++d;
      if (d == 4)
        Refuse(f.PortLabel(s, p),
               "leads to " + f.SwitchLabel(t) + " at " + Coord(m.x[t], m.y[t]) +
                   ", not a grid neighbour of " + Coord(m.x[s], m.y[s]),
               "links join grid neighbours; no wrap-around or diagonal links");
      m.port[s][d] = p;
      m.dir[s][p] = static_cast<int8_t>(d);
    }
    for (int d = 0; d < 4; ++d) {
      const int nx = m.x[s] + kDx[d], ny = m.y[s] + kDy[d];
      if (nx < 0 || ny < 0 || nx >= m.X || ny >= m.Y || m.port[s][d]) continue;
      Refuse(f.SwitchLabel(s) + " at " + Coord(m.x[s], m.y[s]),
             std::string("no link to its ") + MeshDirName(d) + " neighbour " +
                 f.SwitchLabel(m.SwitchAt(nx, ny)) + " (a missing link)",
             "every pair of grid neighbours is linked");
    }
  }
}

}  // namespace

const char* MeshDirName(int dir) {
  static const char* const kNames[4] = {"E", "N", "W", "S"};
  return dir >= 0 && dir < 4 ? kNames[dir] : "-";
}

std::string Mesh::Label(int sw) const { return "N" + Coord(x[sw], y[sw]); }

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
  CheckConnected(f, l);

  const int origin = PickOrigin(f, l);
  const std::vector<int>& op = l.port[origin];  // in port order: op[0] < op[1]
  std::vector<char> placed(n, 0);
  std::vector<int> row, column;
  if (op.size() == 2) {  // a 2-D grid: lower port east, higher north
    row = WalkSide(f, l, origin, l.nbr[origin][0], placed);
    column = WalkSide(f, l, origin, l.nbr[origin][1], placed);
  } else if (op.size() == 1 && op[0] % 2 == 0) {  // a line along y
    column = WalkSide(f, l, origin, l.nbr[origin][0], placed);
    row = {origin};
  } else {  // a line along x, or a lone switch
    row = WalkSide(f, l, origin, op.empty() ? -1 : l.nbr[origin][0], placed);
    column = {origin};
  }
  m.X = static_cast<int>(row.size());
  m.Y = static_cast<int>(column.size());
  if (static_cast<long>(m.X) * m.Y != n)
    Refuse(f.SwitchLabel(origin),
           "the sides from this corner are " + std::to_string(m.X) + " and " +
               std::to_string(m.Y) + " switches long, but the fabric has " + std::to_string(n) +
               " switches",
           "an X x Y mesh has X*Y switches");

  m.x.assign(n, 0);
  m.y.assign(n, 0);
  m.at.assign(n, -1);
  m.port.assign(n, {0, 0, 0, 0});
  m.dir.resize(n);
  for (int s = 0; s < n; ++s) m.dir[s].assign(f.switches[s].num_ports + 1, kNoDir);
  for (int x = 0; x < m.X; ++x) Place(m, row[x], x, 0);
  // Column switches above the origin are re-placed row by row; the walk
  // marked them placed so growth cannot take them for another column.
  GrowRows(f, l, column, m, placed);
  CheckGrid(f, l, m);
  return m;
}

}  // namespace ibu
