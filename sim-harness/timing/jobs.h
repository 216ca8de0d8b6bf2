// A sweep too big for one machine, written out as independent jobs for an
// existing scheduler (GNU parallel, a Slurm job array) and merged back:
//
//   DIR/jobs.txt   one shell command per point: `cd CWD && IBUNION sim ARGS
//                  (IBUNION: this binary, or $IBUNION_PROGRAM)
//                  --point N --save DIR/points/N.json --quiet`
//                  (`parallel < DIR/jobs.txt`, or `bash DIR/jobs.txt`)
//   DIR/slurm.sh   `sbatch DIR/slurm.sh`: a job array of at most
//                  kMaxArrayTasks tasks (Slurm's default MaxArraySize is
//                  1001); task i runs K consecutive lines of jobs.txt,
//                  lines iK+1 .. (i+1)K, K = ceil(N / kMaxArrayTasks)
//                  (1 up to 1000 points: a task per point)
//   DIR/sweep.txt  what the merge needs: point count and the table heading
//   DIR/links.txt  the name of every directed link by global port, so that
//                  `--merge DIR --links FILE` names the per-link utilisation
//                  the records carry as the direct sweep's --links does
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

// Array tasks slurm.sh asks for at most: indices 0..999 stay below Slurm's
// default MaxArraySize (1001).
constexpr int kMaxArrayTasks = 1000;

// Names of the directed links by global port (PointResult::link_util's
// index), as --links writes them; "" for an unconnected port (no row).
using LinkNames = std::vector<std::string>;

// `words` is the `sim` command line to repeat (without --emit-jobs);
// `points` the number of sweep points; `head` the table heading line;
// `links` the fabric's link names. Creates DIR (and DIR/points); refuses a
// DIR that already holds a job set. Throws ibu::Error.
// `run` the settings' key (PointResult::run) that every point must carry.
void WriteJobSet(const std::string& dir, const std::vector<std::string>& words, int points,
                 const std::string& head, const std::string& run, const LinkNames& links);

struct JobSet {
  int points = 0;
  std::string head;
  std::string run;  // empty in sets written before it existed
};

// Reads DIR/sweep.txt; throws ibu::Error naming the file and line.
JobSet ReadJobSet(const std::string& dir);

// The files of the set a merge reads (sweep.txt, jobs.txt, links.txt and
// the points' records), so that no output of the merge replaces one.
std::vector<std::string> JobSetFiles(const std::string& dir, const JobSet& set);

// Every point of the set, in order; throws ibu::Error listing the points
// whose file is missing, with the jobs.txt commands to rerun (the first
// 10), or naming the malformed file.
std::vector<PointResult> ReadPoints(const std::string& dir, const JobSet& set);

// The .json files in DIR/points that are no point of `set` (7.json in a
// set of 7 points, 00.json): leftovers of another run, which the merge
// does not read; the merge names them.
std::vector<std::string> StrayPointFiles(const std::string& dir, const JobSet& set);

// DIR/links.txt, checked against the points' per-link values; throws
// ibu::Error naming the file and line, or the point file that does not fit.
LinkNames ReadLinkNames(const std::string& dir, const std::vector<PointResult>& points);

// POSIX shell single-quoting.
std::string ShellQuote(const std::string& word);

// FNV-1a, 64 bits: of `n` bytes, and of a file's contents (an unreadable
// file adds nothing: it is refused where it is read).
uint64_t Fnv1a(const char* bytes, size_t n, uint64_t h = 14695981039346656037ull);
uint64_t Fnv1aOfFile(const std::string& path, uint64_t h = 14695981039346656037ull);

// The digest of the program the jobs run (this one, or $IBUNION_PROGRAM):
// part of a run's key, so that a merge refuses points of another build.
// Reads it once per process: about 0.1 s for the 40 MB binary.
std::string ProgramDigest();
// A digest as the run key writes it: 16 hex digits.
std::string DigestHex(uint64_t h);

// The merge's output options, as the hints after --emit-jobs list them.
constexpr const char* kMergeOutputs = "[--json] [--csv FILE] [--links FILE] [--plot FILE.png]";

}  // namespace ibu::sim
