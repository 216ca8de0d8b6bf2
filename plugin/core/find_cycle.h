// One directed cycle of a graph, for the credit-loop checks: verify's
// channel dependency graph and the timing model's wait-for graph of a
// deadlocked run.
#pragma once

#include <utility>
#include <vector>

namespace ibu {

// A cycle among nodes 0..n-1, each node followed by its successor on it,
// or an empty vector. `succ(v)` returns v's successors (a vector or like);
// nodes for which `skip(v)` holds are left out of the graph. Iterative DFS
// in node order, O(nodes + edges): a recursive one would overflow the
// stack on a fabric's hundreds of thousands of channels.
template <typename Succ, typename Skip>
std::vector<int> FindCycle(int n, const Succ& succ, const Skip& skip) {
  std::vector<char> color(n, 0);  // 0 new, 1 on the stack, 2 done
  std::vector<std::pair<int, size_t>> stack;
  for (int root = 0; root < n; ++root) {
    if (color[root] || skip(root)) continue;
    color[root] = 1;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      const auto& out = succ(v);
      if (next == out.size()) {
        color[v] = 2;
        stack.pop_back();
        continue;
      }
      const int w = out[next++];
      if (skip(w)) continue;
      if (color[w] == 0) {
        color[w] = 1;
        stack.push_back({w, 0});
      } else if (color[w] == 1) {
        size_t i = stack.size();
        while (stack[i - 1].first != w) --i;
        std::vector<int> cycle;
        for (--i; i < stack.size(); ++i) cycle.push_back(stack[i].first);
        return cycle;
      }
    }
  }
  return {};
}

}  // namespace ibu
