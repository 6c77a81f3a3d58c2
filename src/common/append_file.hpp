// Appending whole lines to a results file (bench JSON lines) so that a process killed midway
// leaves no partial line.
#pragma once

#include <string>
#include <string_view>

namespace raydb::detail {

// Appends `line` (one complete line, '\n' included, at most one memory page: 4096 bytes on x86-64)
// to `path`, creating it.
//
// Why not one write(2) on an O_APPEND descriptor: Linux copies a write into the page cache a page
// (folio) at a time and stops between pages when a fatal signal is pending, so SIGKILL can cut a
// line that crosses a page boundary (seen on the GPU machine; tests/reliability/test_faults.cpp).
// A write inside one page is all or nothing. So a line that would cross a boundary is placed at
// the next page instead: the previous line's '\n' is overwritten by spaces up to the page's end and
// a '\n' there (JSON allows trailing whitespace), one write inside that page, and the line then
// starts the next page, in a second write. A kill between the two leaves the previous line whole.
//
// Writers of one file are serialised with flock(2). A file that does not end in '\n' (a writer of
// another tool killed midway) is cut back to its last whole line first. With `durable`, the line is
// fsync'ed before returning. Errors are Errc::io naming the file; a line longer than a page is
// Errc::invalid_argument naming the limit.
void append_line(const std::string& path, std::string_view line, bool durable = true);

}  // namespace raydb::detail
