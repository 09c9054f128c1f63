// Breakpoints by line and by function, and data breakpoints (gdb's
// watchpoints), which the replay server checks in both directions. Each
// request replaces the previous set of its kind (of its source file, for
// line breakpoints), as DAP says.
#include <cstdlib>

#include "dap/json_text.h"
#include "dap/session.h"

namespace backstep::dap {
namespace {

long to_long(const std::string& s) { return std::strtol(s.c_str(), nullptr, 10); }

// DAP's hitCondition as gdb's ignore count: "N" (or ">= N", "== N"):
// stop at the N-th hit, i.e. ignore the first N-1.
std::variant<long, Failure> ignore_count(llvm::StringRef condition) {
  llvm::StringRef text = condition.trim();
  if (text.consume_front(">=") || text.consume_front("==")) text = text.trim();
  long n = 0;
  if (text.getAsInteger(10, n) || n < 1) {
    return Failure{"hit condition '" + condition.str() +
                   "': backstep takes a count N (stop at the N-th hit and after)"};
  }
  return n - 1;
}

// DAP's view of a gdb breakpoint tuple (-break-insert's bkpt).
llvm::json::Object breakpoint_of(const mi::Value& bkpt) {
  llvm::json::Object out{{"id", to_long(bkpt.text("number"))}};
  std::string addr = bkpt.text("addr");
  out["verified"] = addr != "<PENDING>";
  std::string line = bkpt.text("line");
  std::string file = bkpt.text("fullname");
  // Several locations (a template, an inlined function): the first one.
  if (line.empty()) {
    if (const mi::Value* locations = bkpt.get("locations"); locations && locations->list() &&
                                                            !locations->list()->empty()) {
      line = locations->list()->front().text("line");
      file = locations->list()->front().text("fullname");
    }
  }
  if (!line.empty()) out["line"] = to_long(line);
  if (!file.empty()) out["source"] = llvm::json::Object{{"path", json_text(file)}};
  if (addr.rfind("0x", 0) == 0) out["instructionReference"] = json_text(addr);
  if (addr == "<PENDING>") out["message"] = "pending: no code for it is loaded yet";
  return out;
}

}  // namespace

std::variant<llvm::json::Object, Failure> Session::insert_breakpoint(const std::string& location,
                                                                    const llvm::json::Object& spec) {
  std::string command = "-break-insert -f";
  if (auto condition = spec.getString("condition"); condition && !condition->trim().empty()) {
    command += " -c " + mi::quote(condition->str());
  }
  if (auto hits = spec.getString("hitCondition"); hits && !hits->trim().empty()) {
    auto count = ignore_count(*hits);
    if (auto* f = std::get_if<Failure>(&count)) return *f;
    if (long n = std::get<long>(count); n > 0) command += " -i " + std::to_string(n);
  }
  if (spec.getString("logMessage")) {
    return Failure{"log points are not supported yet: use a breakpoint with a condition"};
  }
  auto r = mi_checked(command + " " + location);
  if (auto* f = std::get_if<Failure>(&r)) return *f;
  const mi::Value* bkpt = std::get<mi::Record>(r).results.get("bkpt");
  if (!bkpt) return Failure{"gdb created no breakpoint for " + location};
  return breakpoint_of(*bkpt);
}

void Session::delete_breakpoints(std::vector<long>& numbers) {
  if (!numbers.empty() && gdb_) {
    std::string command = "-break-delete";
    for (long n : numbers) command += " " + std::to_string(n);
    mi(command);
  }
  numbers.clear();
}

llvm::json::Array Session::replace_breakpoints(const llvm::json::Object& args, std::vector<long>& numbers,
                                               std::set<long>* named, const LocationOf& location_of) {
  if (named) {
    for (long id : numbers) named->erase(id);
  }
  delete_breakpoints(numbers);
  llvm::json::Array out;
  const llvm::json::Array* wanted = args.getArray("breakpoints");
  for (std::size_t i = 0; wanted && i < wanted->size(); ++i) {
    const llvm::json::Object* spec = (*wanted)[i].getAsObject();
    static const llvm::json::Object kEmpty;
    auto location = location_of(spec ? *spec : kEmpty);
    auto b = std::holds_alternative<Failure>(location)
                 ? std::variant<llvm::json::Object, Failure>(std::get<Failure>(location))
                 : insert_breakpoint(std::get<std::string>(location), spec ? *spec : kEmpty);
    if (auto* f = std::get_if<Failure>(&b)) {
      llvm::json::Object refused{{"verified", false}, {"message", json_text(f->message)}};
      if (auto line = spec ? spec->getInteger("line") : llvm::None) refused["line"] = *line;
      out.push_back(std::move(refused));
      continue;
    }
    llvm::json::Object& bp = std::get<llvm::json::Object>(b);
    long id = *bp.getInteger("id");
    numbers.push_back(id);
    if (named) named->insert(id);
    out.push_back(std::move(bp));
  }
  return out;
}

Reply Session::set_breakpoints(const llvm::json::Object& args) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  const llvm::json::Object* source = args.getObject("source");
  auto path = source ? source->getString("path") : llvm::None;
  if (!path) return Failure{"setBreakpoints: the source has no path"};
  std::string file = path->str();
  auto out = replace_breakpoints(args, source_breakpoints_[file], nullptr,
                                 [&](const llvm::json::Object& spec) -> std::variant<std::string, Failure> {
                                   auto line = spec.getInteger("line");
                                   if (!line) return Failure{"no line given"};
                                   return "--source " + mi::quote(file) + " --line " + std::to_string(*line);
                                 });
  return llvm::json::Object{{"breakpoints", std::move(out)}};
}

Reply Session::set_function_breakpoints(const llvm::json::Object& args) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  auto out = replace_breakpoints(args, function_breakpoints_, &names_.functions,
                                 [](const llvm::json::Object& spec) -> std::variant<std::string, Failure> {
                                   auto name = spec.getString("name");
                                   if (!name || name->trim().empty()) return Failure{"no function name given"};
                                   return "--function " + mi::quote(name->trim().str());
                                 });
  return llvm::json::Object{{"breakpoints", std::move(out)}};
}

Reply Session::set_exception_breakpoints(const llvm::json::Object&) {
  // No filters are offered: gdb stops at every signal the program gets
  // (its `handle` settings), and shows it as an exception.
  return llvm::json::Object{{"breakpoints", llvm::json::Array{}}};
}

// A data breakpoint watches an address, not a name, so that it keeps
// meaning the same bytes after the frame that declared them is gone, in
// either direction. Its dataId is a gdb expression for those bytes:
// "*(int *) 0x5555...".
Reply Session::data_breakpoint_info(const llvm::json::Object& args) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  auto name = args.getString("name");
  if (!name) return Failure{"dataBreakpointInfo: no name given"};
  std::string expression = name->str();
  std::string shown = expression;
  std::optional<FrameRef> frame = frame_of(args);
  if (auto ref_id = args.getInteger("variablesReference"); ref_id && *ref_id > 0) {
    const Ref* ref = find_ref(*ref_id);
    if (!ref) return Failure{"dataBreakpointInfo: that variable is from an earlier stop"};
    if (auto* scope = std::get_if<ScopeRef>(ref)) {
      frame = scope->frame;
    } else {
      // A child of a structure or array: gdb's expression for it.
      VarobjRef parent = std::get<VarobjRef>(*ref);
      frame = parent.frame;
      std::string child = child_named(parent.varobj, expression);
      if (child.empty()) return Failure{"dataBreakpointInfo: no member " + expression};
      auto path = mi_checked("-var-info-path-expression " + child);
      if (auto* f = std::get_if<Failure>(&path)) return *f;
      shown = member_expression(parent.shown, parent.type, expression);
      expression = std::get<mi::Record>(path).results.text("path_expr");
    }
  }
  std::string where = frame ? frame_options(*frame) : "";
  // A variable object gives the pointer's type, which -data-evaluate-expression
  // leaves out: "int *" and "0x555555558040 <t+32>".
  auto address = mi_checked("-var-create" + where + " - * " + mi::quote("&(" + expression + ")"));
  llvm::json::Object out{{"description", json_text(name->str())}};
  if (auto* f = std::get_if<Failure>(&address)) {
    out["dataId"] = nullptr;
    out["description"] = json_text(name->str() + " cannot be watched: " + f->message);
    return out;
  }
  const mi::Value& pointer = std::get<mi::Record>(address).results;
  mi("-var-delete " + pointer.text("name"));
  std::string value = pointer.text("value");
  std::string type = pointer.text("type");
  if (value.rfind("0x", 0) != 0 || type.empty()) {
    out["dataId"] = nullptr;
    out["description"] = json_text(name->str() + " has no address to watch");
    return out;
  }
  std::string data_id = "*(" + type + ") " + value.substr(0, value.find(' '));
  data_names_[data_id] = shown;
  out["dataId"] = json_text(data_id);
  out["accessTypes"] = llvm::json::Array{"write", "read", "readWrite"};
  out["canPersist"] = false;
  return out;
}

Reply Session::set_data_breakpoints(const llvm::json::Object& args) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  for (long id : data_breakpoints_) names_.watches.erase(id);
  delete_breakpoints(data_breakpoints_);
  llvm::json::Array out;
  const llvm::json::Array* wanted = args.getArray("breakpoints");
  for (std::size_t i = 0; wanted && i < wanted->size(); ++i) {
    const llvm::json::Object* spec = (*wanted)[i].getAsObject();
    auto data_id = spec ? spec->getString("dataId") : llvm::None;
    if (!data_id) {
      out.push_back(llvm::json::Object{{"verified", false}, {"message", "no dataId given"}});
      continue;
    }
    auto access = spec->getString("accessType").getValueOr("write");
    std::string command = "-break-watch";
    if (access == "read") command += " -r";
    if (access == "readWrite") command += " -a";
    auto r = mi_checked(command + " " + mi::quote(data_id->str()));
    if (auto* f = std::get_if<Failure>(&r)) {
      out.push_back(llvm::json::Object{{"verified", false}, {"message", json_text(f->message)}});
      continue;
    }
    const mi::Record& rec = std::get<mi::Record>(r);
    const mi::Value* w = rec.results.get("wpt");
    if (!w) w = rec.results.get("hw-rwpt");
    if (!w) w = rec.results.get("hw-awpt");
    long id = w ? to_long(w->text("number")) : 0;
    if (id > 0) {
      data_breakpoints_.push_back(id);
      auto named = data_names_.find(data_id->str());
      names_.watches[id] = named != data_names_.end() ? named->second : data_id->str();
    }
    // gdb's watchpoints have no condition in -break-watch: add it after.
    if (auto condition = spec->getString("condition"); id > 0 && condition && !condition->trim().empty()) {
      mi("-break-condition " + std::to_string(id) + " " + condition->str());
    }
    out.push_back(llvm::json::Object{{"id", id}, {"verified", id > 0}});
  }
  return llvm::json::Object{{"breakpoints", std::move(out)}};
}

}  // namespace backstep::dap
