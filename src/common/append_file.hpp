// Appending whole lines to a results file (bench JSON lines) so that a process killed midway
// leaves no partial line.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "raydb/error.hpp"

namespace raydb::detail {

// Appends `line` (one complete line, '\n' included) to `path`, creating it, with one write(2) on
// an O_APPEND descriptor: the kernel places the bytes at the end in one piece, even with other
// writers, and nothing sits in a user-space buffer for a kill to cut. A short write (disk full)
// is cut back off, so the file ends with a whole line either way; fsync makes the line durable
// before the next is written. Errors are Errc::io naming the file.
inline void append_line(const std::string& path, std::string_view line) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(Errc::io, "cannot open " + path + " for appending: " + std::strerror(errno));
  struct stat st {};
  const bool sized = ::fstat(fd, &st) == 0;
  ssize_t n;
  do {
    n = ::write(fd, line.data(), line.size());
  } while (n < 0 && errno == EINTR);
  const int write_errno = errno;
  const bool whole = n == static_cast<ssize_t>(line.size());
  if (!whole && n > 0 && sized) (void)::ftruncate(fd, st.st_size);
  const bool synced = whole && ::fsync(fd) == 0;
  ::close(fd);
  if (!whole)
    throw Error(Errc::io, "writing " + path + " failed: " +
                              (n < 0 ? std::strerror(write_errno) : "short write (disk full?)"));
  if (!synced) throw Error(Errc::io, "flushing " + path + " failed: " + std::strerror(errno));
}

}  // namespace raydb::detail
