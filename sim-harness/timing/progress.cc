#include "sim-harness/timing/progress.h"

#include <algorithm>
#include <cmath>

namespace ibu::sim {

ProgressBar::ProgressBar(int points, bool tty, std::FILE* out)
    : out_(out), tty_(tty), total_(std::max(1, points)), partial_(size_t(std::max(1, points)), 0.0),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
  std::lock_guard<std::mutex> lock(mu_);
  ClearLocked();
}

double ProgressBar::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string ProgressBar::Render(double fraction, int done, int total, double elapsed_s) {
  constexpr int kWidth = 30;
  fraction = std::min(1.0, std::max(0.0, fraction));
  const int full = int(fraction * kWidth);
  std::string bar(size_t(full), '#');
  bar.resize(kWidth, '.');
  char buf[160];
  if (fraction > 0.01) {
    const double left = elapsed_s * (1 - fraction) / fraction;
    std::snprintf(buf, sizeof buf, "ibunion sim: [%s] %3d%%  %d/%d points  %.0f s, ~%.0f s left", bar.c_str(),
                  int(fraction * 100), done, total, elapsed_s, left);
  } else {
    std::snprintf(buf, sizeof buf, "ibunion sim: [%s] %3d%%  %d/%d points  %.0f s", bar.c_str(),
                  int(fraction * 100), done, total, elapsed_s);
  }
  return buf;
}

void ProgressBar::Tick(int index, double done) {
  if (!tty_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (index >= 0 && size_t(index) < partial_.size()) partial_[size_t(index)] = done;
  DrawLocked(false);
}

void ProgressBar::PointDone(int done, int total, const PointResult& r) {
  std::lock_guard<std::mutex> lock(mu_);
  done_ = done;
  if (r.index >= 0 && size_t(r.index) < partial_.size()) partial_[size_t(r.index)] = 1.0;
  if (total > 1) {
    ClearLocked();
    std::fprintf(out_, "ibunion sim: [%d/%d] load %s: accepted %.5g, latency %.1f ns (%.2f s)\n", done, total,
                 LoadText(r).c_str(), r.accepted, r.latency_avg_ns, r.wall_s);
  }
  if (tty_) DrawLocked(true);
  std::fflush(out_);
}

void ProgressBar::DrawLocked(bool force) {
  const double t = Elapsed();
  if (t < 1.0) return;                                 // short runs: no bar
  if (!force && last_draw_ >= 0 && t - last_draw_ < 0.25) return;
  last_draw_ = t;
  double sum = 0;
  for (double f : partial_) sum += f;
  std::fprintf(out_, "\r%s\033[K", Render(sum / double(total_), done_, total_, t).c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::ClearLocked() {
  if (!drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace ibu::sim
