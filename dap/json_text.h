// Text from gdb or from the recorded program as a JSON string. LLVM's JSON
// values must be valid UTF-8 and assert otherwise (assertions stay on in
// backstep's builds); a program's output or a char array's bytes need not
// be, so every such string goes through here: invalid sequences become
// U+FFFD, valid text is kept as it is.
#pragma once

#include <string>
#include <string_view>

#include "llvm/Support/JSON.h"

namespace backstep::dap {

inline llvm::json::Value json_text(std::string_view s) {
  llvm::StringRef ref(s.data(), s.size());
  if (llvm::json::isUTF8(ref)) return llvm::json::Value(std::string(s));
  return llvm::json::Value(llvm::json::fixUTF8(ref));
}

}  // namespace backstep::dap
