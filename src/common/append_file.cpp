#include "common/append_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "raydb/error.hpp"

namespace raydb::detail {
namespace {

// Closes the descriptor (which also drops its flock) on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void io_error(const std::string& what, const std::string& path, int err) {
  throw Error(Errc::io, what + " " + path + ": " + std::strerror(err));
}

void write_all_at(int fd, const char* data, size_t size, off_t at, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::pwrite(fd, data, size, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) io_error("writing", path, n < 0 ? errno : ENOSPC);
    data += n;
    size -= static_cast<size_t>(n);
    at += n;
  }
}

// The offset just past the file's last '\n' (0 if none).
off_t end_of_last_line(int fd, off_t size, const std::string& path) {
  std::vector<char> block(4096);
  for (off_t end = size; end > 0;) {
    off_t begin = std::max<off_t>(0, end - static_cast<off_t>(block.size()));
    ssize_t n = ::pread(fd, block.data(), static_cast<size_t>(end - begin), begin);
    if (n < 0 && errno == EINTR) continue;
    if (n != end - begin) io_error("reading", path, n < 0 ? errno : EIO);
    for (ssize_t i = n; i > 0; --i)
      if (block[static_cast<size_t>(i - 1)] == '\n') return begin + i;
    end = begin;
  }
  return 0;
}

}  // namespace

void append_line(const std::string& path, std::string_view line, bool durable) {
  const off_t page = ::sysconf(_SC_PAGESIZE) > 0 ? ::sysconf(_SC_PAGESIZE) : 4096;
  if (line.empty() || line.back() != '\n')
    throw Error(Errc::invalid_argument, "appending to " + path + ": a line must end in '\\n'");
  if (static_cast<off_t>(line.size()) > page)
    throw Error(Errc::invalid_argument,
                "appending to " + path + ": a line of " + std::to_string(line.size()) +
                    " bytes is longer than a page (" + std::to_string(page) +
                    " bytes), the most that is written whole even if the writer is killed");
  Fd f;
  f.fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (f.fd < 0) io_error("cannot open", path + " for appending", errno);
  int rc;
  while ((rc = ::flock(f.fd, LOCK_EX)) != 0 && errno == EINTR) {
  }
  if (rc != 0) io_error("cannot lock", path, errno);
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) io_error("cannot stat", path, errno);
  off_t size = st.st_size;

  if (size > 0) {
    char last = 0;
    if (::pread(f.fd, &last, 1, size - 1) != 1) io_error("reading", path, errno ? errno : EIO);
    if (last != '\n') {
      size = end_of_last_line(f.fd, size, path);
      if (::ftruncate(f.fd, size) != 0) io_error("cannot cut the partial line of", path, errno);
    }
  }
  const off_t room = page - size % page;
  if (static_cast<off_t>(line.size()) > room) {
    // size % page > 0 here (else room == page >= line), so byte size-1, the previous line's '\n',
    // lies in the same page as the padding: one write within one page.
    std::string pad(static_cast<size_t>(room), ' ');
    pad.back() = '\n';
    const char space = ' ';
    std::string patch = space + pad;
    write_all_at(f.fd, patch.data(), patch.size(), size - 1, path);
    size += room;
  }
  write_all_at(f.fd, line.data(), line.size(), size, path);
  if (durable && ::fsync(f.fd) != 0) io_error("flushing", path, errno);
}

}  // namespace raydb::detail
