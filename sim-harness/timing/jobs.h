// A sweep too big for one machine, written out as independent jobs for an
// existing scheduler (GNU parallel, a Slurm job array) and merged back:
//
//   DIR/jobs.txt   one shell command per point: `cd CWD && IBUNION sim ARGS
//                  (IBUNION: this binary, or $IBUNION_PROGRAM)
//                  --point N --save DIR/points/N.json --quiet`
//                  (`parallel < DIR/jobs.txt`, or `bash DIR/jobs.txt`)
//   DIR/slurm.sh   `sbatch DIR/slurm.sh`: an array 0..N-1, task i runs line
//                  i+1 of jobs.txt
//   DIR/sweep.txt  what the merge needs: point count and the table heading
//   DIR/points/    N.json per finished point (written atomically)
//
// Each job computes its point exactly as the direct sweep would (same
// index, same seed), so `ibunion sim --merge DIR` prints what the sweep
// would have printed. No distribution of our own: the scheduler runs jobs.
#pragma once

#include <string>
#include <vector>

#include "sim-harness/timing/stats.h"

namespace ibu::sim {

// `words` is the `sim` command line to repeat (without --emit-jobs);
// `points` the number of sweep points; `head` the table heading line.
// Creates DIR (and DIR/points); refuses a DIR that already holds a job set.
// Throws ibu::Error.
void WriteJobSet(const std::string& dir, const std::vector<std::string>& words, int points,
                 const std::string& head);

struct JobSet {
  int points = 0;
  std::string head;
};

// Reads DIR/sweep.txt; throws ibu::Error naming the file and line.
JobSet ReadJobSet(const std::string& dir);

// Every point of the set, in order; throws ibu::Error listing the points
// whose file is missing (with the jobs.txt lines to rerun) or naming the
// malformed file.
std::vector<PointResult> ReadPoints(const std::string& dir, const JobSet& set);

// POSIX shell single-quoting.
std::string ShellQuote(const std::string& word);

}  // namespace ibu::sim
