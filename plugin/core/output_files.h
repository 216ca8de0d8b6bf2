// Output files written all-or-nothing: every file goes to a temporary name
// next to its target first, and only when all of them are complete are they
// renamed into place, so a failing command leaves neither partial files
// nor a partial set of them behind. (The renames themselves are not one
// step: should the directory change under us between two of them, the
// files renamed before stay. Same-directory renames fail no other way.)
// A replaced file keeps its permissions;
// one the user may not write is refused; a symbolic link stays one, the
// file it points at written (created if it dangles), as '>' does. "-" (or
// "") means standard output; an existing target that is no regular file
// (/dev/null, /dev/stdout, a FIFO) is written in place, since a rename
// would replace the device or pipe with a file. Those are written while
// the files wait as temporaries, which are renamed into place only when
// every one of them succeeded (nothing written to the files otherwise:
// `--guid2lid g -o /dev/full`). A directory is refused before anything.
#pragma once

#include <cstdio>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ibu {

struct OutputFile {
  std::string path;
  std::function<void(std::ostream&)> write;
};

// Throws ibu::Error naming the path and the system's reason when a file
// cannot be written (a directory, a device or stdout that fails), when two
// outputs name one file (devices aside;
// standard output too), or when an output is one of `inputs`, the files
// the command read (`route x.net --lft x.net` replaced the net file);
// nothing has been replaced then.
void WriteFilesAtomically(const std::vector<OutputFile>& files, const std::vector<std::string>& inputs = {});

// Throws as WriteFilesAtomically would for targets it could not write (a
// missing directory, no permission, a directory, two outputs in one file,
// an output that is one of `inputs`), before a long run computes their
// content: creates and removes each temporary. Targets stay untouched.
void CheckOutputsWritable(const std::vector<std::string>& paths, const std::vector<std::string>& inputs = {});

// For a program's main (the CLI's; never a library inside another process,
// such as OpenSM's, which handles its own signals): SIGINT, SIGTERM and
// SIGHUP, where they are not ignored, remove the temporaries being written
// before the process dies of them (an interrupted `route` on FT(16,3) left
// a 400 MB FILE.tmp.PID). Targets are untouched, as on any failure.
void RemoveTemporariesOnSignals();

// A temporary of the caller's own (a plot's data, script and image) that
// the handler above removes too: noted once created, and removed, then
// forgotten, by RemoveNotedTemporary.
void NoteOwnTemporary(const std::string& path);
void RemoveNotedTemporary(const std::string& path);

// "-" or "": the output goes to standard output (a command then sends its
// human report to stderr, so stdout holds that output alone).
bool IsStdout(const std::string& path);

// Flushes std::cout and stdout and throws ibu::Error ("standard output:
// write failed (reason)") when any write to them failed: a full disk, a
// closed descriptor. Output lost is never a silent success.
void FlushStdout();

// A report flushed before a command writes its files: on stdout, a failed
// write throws as FlushStdout does, so no file is written beside a report
// that was lost (both or neither); on stderr, fflush alone.
void FlushReport(std::FILE* out);

// For a program's main, before it writes: std::cout keeps the reason of its
// first failed write for FlushStdout, which has none to find otherwise once
// the stream stopped writing (a report larger than stdio's buffer on a full
// disk said "write failed", and not why).
void KeepStdoutWriteErrors();

}  // namespace ibu
