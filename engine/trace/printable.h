// Text that comes from a trace (a command line, an abort message, a file
// name), made safe to print on the user's terminal. A trace may have been
// handed to the user by someone else: its strings are hostile input, and an
// escape sequence in one must not reach the terminal, nor may a "one-line"
// message fill the screen. The program's own recorded output, which replay
// re-emits byte for byte, is never passed through this: it is the program's.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace backstep::trace {

// The most bytes of one piece of trace text that a message shows.
inline constexpr std::size_t kPrintableMax = 1024;

// What printable() escapes. All: text from a trace, shown on one line.
// ControlsOnly: a message backstep composed (where it quotes a trace, that
// part went through All already), which may span lines: newlines and tabs
// stay as they are, and only what could drive a terminal is escaped.
enum class Escaping { All, ControlsOnly };

// `text` with every byte that could drive a terminal escaped as \xHH
// (control characters, DEL, bytes that are not UTF-8, C1 controls, and the
// Unicode controls that reorder or break lines), with (All) a tab and a
// newline as \t and \n, and cut after `max_len` bytes of `text` with
// "... (N more bytes)". Printable ASCII (a backslash too: a command line
// shows as it was typed) and other UTF-8 pass unchanged.
std::string printable(std::string_view text, std::size_t max_len = kPrintableMax,
                      Escaping escaping = Escaping::All);

}  // namespace backstep::trace
