// Progress of a run on stderr. On a terminal: one bar, redrawn in place at
// most four times a second once the run has taken a second (short runs stay
// quiet), with points done, percent and time left; finished sweep points are
// printed above it. Elsewhere (a log file, a pipe): one line per finished
// point only, so logs do not fill with redraws. Thread-safe: the sweep's
// worker threads report to it.
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "sim-harness/timing/stats.h"

namespace ibu::sim {

class ProgressBar {
 public:
  // `points` in the run; `tty`: draw the bar (normally isatty(stderr)).
  ProgressBar(int points, bool tty, std::FILE* out = stderr);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // A running point's estimate of its fraction done.
  void Tick(int index, double done);
  // A point finished (done points so far, total).
  void PointDone(int done, int total, const PointResult& r);

  // The bar's text for `fraction` done after `elapsed_s` (for tests).
  static std::string Render(double fraction, int done, int total, double elapsed_s);

 private:
  void DrawLocked(bool force);
  void ClearLocked();
  double Elapsed() const;

  std::mutex mu_;
  std::FILE* out_;
  bool tty_;
  int total_;
  int done_ = 0;
  std::vector<double> partial_;  // per point: fraction done while running
  std::chrono::steady_clock::time_point start_;
  double last_draw_ = -1;
  bool drawn_ = false;
};

}  // namespace ibu::sim
