// `ibunion sim`: the command line of the timing model. The ibunion CLI
// dispatches `ibunion sim ARGS...` here.
#pragma once

namespace ibu::sim {

// argv[0..argc) are the words after `sim` (a leading "sim" word is skipped
// too). Prints results on stdout, diagnostics and progress on stderr.
// Returns 0 on success, 1 when a run failed (deadlock, packet without a
// route, lost or duplicated packet), 2 on bad input (unknown option, bad
// value, malformed config line, unreadable file, tables not matching the
// fabric), each with a message naming the option, file or line.
int SimMain(int argc, char** argv);

}  // namespace ibu::sim
