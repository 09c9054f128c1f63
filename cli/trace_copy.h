// Copies of a trace's files for a debugger or an IDE (lldb reads the program
// and its libraries from disk). Read through trace::open_trace_file, like
// every trace file; named after what the trace says the file was, which is
// hostile input too.
#pragma once

#include <string>

namespace backstep::cli {

// Copies the trace file `from` (a path returned by verified_file_path) to the
// new file `to`, creating its directories; an existing `to` is left alone.
// Throws std::runtime_error (or trace::TraceError) saying why it failed.
void copy_trace_file(const std::string& from, const std::string& to);

// True if the first bytes of the trace file `path` are those of an ELF
// shared object (ET_DYN, little-endian).
bool is_shared_object(const std::string& path);

// A recorded path ("/usr/lib/libc.so.6") that is safe to put under a
// directory of ours: absolute, without "." or ".." components or NUL bytes.
bool is_plain_absolute_path(const std::string& path);

}  // namespace backstep::cli
