// Parsers for qXfer object transfers and vFile host I/O. Both packets carry a
// sub-name (the object, the operation); each has a small table of the ones
// this layer knows, and anything else parses to Unknown.
#include <array>

#include "gdbserver/rsp/request_parsers.h"

namespace backstep::rsp {

namespace {

struct XferEntry {
  XferObject object;
  std::string_view name;
  bool writable;
};

constexpr auto kXferObjects = std::to_array<XferEntry>({
    {XferObject::Features, "features", false},
    {XferObject::Auxv, "auxv", false},
    {XferObject::ExecFile, "exec-file", false},
    {XferObject::Siginfo, "siginfo", true},
    {XferObject::Threads, "threads", false},
    {XferObject::LibrariesSvr4, "libraries-svr4", false},
});

}  // namespace

std::string_view to_string(XferObject object) {
  for (const auto& entry : kXferObjects) {
    if (entry.object == object) return entry.name;
  }
  return "?";
}

namespace detail {

namespace {

// After "qXfer:<object>:read": ":<annex>:<offset>,<length>".
ParseResult parse_xfer_read(XferObject object, Scanner& s) {
  XferRead request;
  request.object = object;
  s.expect(':', "before the annex");
  request.annex = std::string(s.until(':'));
  s.expect(':', "after the annex");
  request.offset = s.hex("offset");
  s.expect(',', "after the offset");
  request.length = s.hex("length");
  return s.finish(std::move(request));
}

// After "qXfer:<object>:write": ":<annex>:<offset>:<binary data>".
ParseResult parse_xfer_write(XferObject object, Scanner& s) {
  XferWrite request;
  request.object = object;
  s.expect(':', "before the annex");
  request.annex = std::string(s.until(':'));
  s.expect(':', "after the annex");
  request.offset = s.hex("offset");
  s.expect(':', "after the offset");
  std::string_view data = s.rest();
  request.data.assign(data.begin(), data.end());
  return s.finish(std::move(request));
}

ParseResult parse_file_setfs(Scanner& s) {
  FileSetFs request;
  request.pid = s.hex_id("pid");
  return s.finish(request);
}

ParseResult parse_file_open(Scanner& s) {
  FileOpen request;
  request.path = s.decode_text(s.until(','), "path");
  s.expect(',', "after the path");
  request.flags = s.hex("flags");
  s.expect(',', "after the flags");
  request.mode = s.hex("mode");
  return s.finish(std::move(request));
}

ParseResult parse_file_close(Scanner& s) {
  FileClose request;
  request.fd = s.hex_id("fd");
  return s.finish(request);
}

ParseResult parse_file_pread(Scanner& s) {
  FilePread request;
  request.fd = s.hex_id("fd");
  s.expect(',', "after the fd");
  request.count = s.hex("count");
  s.expect(',', "after the count");
  request.offset = s.hex("offset");
  return s.finish(request);
}

ParseResult parse_file_pwrite(Scanner& s) {
  FilePwrite request;
  request.fd = s.hex_id("fd");
  s.expect(',', "after the fd");
  request.offset = s.hex("offset");
  s.expect(',', "after the offset");
  std::string_view data = s.rest();
  request.data.assign(data.begin(), data.end());
  return s.finish(std::move(request));
}

ParseResult parse_file_fstat(Scanner& s) {
  FileFstat request;
  request.fd = s.hex_id("fd");
  return s.finish(request);
}

ParseResult parse_file_unlink(Scanner& s) {
  FileUnlink request;
  request.path = s.decode_text(s.rest(), "path");
  return s.finish(std::move(request));
}

ParseResult parse_file_readlink(Scanner& s) {
  FileReadlink request;
  request.path = s.decode_text(s.rest(), "path");
  return s.finish(std::move(request));
}

struct FileOperation {
  std::string_view name;
  ParseResult (*parse)(Scanner&);
};

constexpr auto kFileOperations = std::to_array<FileOperation>({
    {"setfs", parse_file_setfs},
    {"open", parse_file_open},
    {"close", parse_file_close},
    {"pread", parse_file_pread},
    {"pwrite", parse_file_pwrite},
    {"fstat", parse_file_fstat},
    {"unlink", parse_file_unlink},
    {"readlink", parse_file_readlink},
});

}  // namespace

ParseResult parse_xfer(std::string_view args) {
  Scanner s(args);
  s.expect(':', "before the object");
  std::string_view object_name = s.until(':');
  s.expect(':', "after the object");
  std::string_view operation = s.until(':');
  if (object_name.empty() || operation.empty()) s.fail("missing object or operation");
  if (s.failed()) return s.finish(Unknown{});  // finish() yields the ParseError

  for (const auto& entry : kXferObjects) {
    if (entry.name != object_name) continue;
    if (operation == "read") return parse_xfer_read(entry.object, s);
    if (operation == "write" && entry.writable) return parse_xfer_write(entry.object, s);
    break;
  }
  return Request{Unknown{"qXfer:" + std::string(object_name) + ":" + std::string(operation)}};
}

ParseResult parse_vfile(std::string_view args) {
  Scanner s(args);
  s.expect(':', "before the operation");
  std::string_view operation = s.until(':');
  if (operation.empty()) s.fail("missing operation");
  if (s.failed()) return s.finish(Unknown{});  // finish() yields the ParseError

  for (const auto& entry : kFileOperations) {
    if (entry.name != operation) continue;
    s.expect(':', "after the operation");
    ParseResult result = entry.parse(s);
    if (auto* error = std::get_if<ParseError>(&result)) {
      error->what = std::string(operation) + ": " + error->what;
    }
    return result;
  }
  return Request{Unknown{"vFile:" + std::string(operation)}};
}

}  // namespace detail
}  // namespace backstep::rsp
