// Removing a file or a whole directory tree with nothing but system calls
// (openat, getdents64, unlinkat): safe in a signal handler, so that the
// handler that ends `backstep replay` can remove what it made. Links are
// removed, never followed.
#pragma once

namespace backstep::cli {

// Removes `path` and, if it is a directory, everything under it (up to a
// depth of 32). What cannot be removed stays, silently.
void remove_tree(const char* path);

}  // namespace backstep::cli
