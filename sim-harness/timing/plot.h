// `ibunion sim --plot FILE.png`: a sweep drawn by gnuplot, run as a child
// process (no library of ours draws): (a) average and 99th-percentile
// latency vs accepted traffic, (b) accepted vs offered traffic with the
// saturation point marked, in the style of the experiment plots
// (sim-harness/experiments/seed001.gp: PlotStyle() is its common part).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim-harness/timing/stats.h"

namespace ibu::sim {

// Throws ibu::Error starting with `what` when gnuplot is not on PATH or
// cannot write PNG: called before the sweep runs, so that a missing
// gnuplot costs nothing.
void CheckPlotter(const std::string& what);

// The lines the plot shares with the experiment plots (terminal, x label,
// log scale, grid, key), one per line.
std::string PlotStyle();

// `title` in lines of at most `width` characters, broken after its "; "
// separators (a run heading: fabric; routing; traffic; ...); a part longer
// than a line keeps its tail ("...", as a path's end names it best).
std::string WrapTitle(const std::string& title, size_t width);

// Characters of the 11-point heading that fit the 1200-pixel image.
constexpr size_t kPlotHeadingWidth = 150;

// The plot's heading: the run's title, then its saturation line, each
// wrapped to kPlotHeadingWidth (centric traffic's saturation line ran to
// about 230 characters, cut off at both ends of the image).
std::string PlotHeading(const std::string& title, const std::string& saturation);

// The PNG of `points` (failed points left out) under `title`. Data and
// image go through temporary files that are removed again; the caller
// writes the bytes (with the other output files, all or none). Throws
// ibu::Error starting with `what` when no point can be drawn or gnuplot
// fails (its message included).
std::string PlotPng(const std::vector<PointResult>& points, const std::string& title, const std::string& what);

}  // namespace ibu::sim
