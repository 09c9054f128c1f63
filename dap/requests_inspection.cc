// What the stopped program holds: threads, stacks, scopes, variables (gdb's
// variable objects, so that pretty printers give their children) and
// expressions. Frame and variable references live until the program runs.
#include <cctype>
#include <cstdlib>

#include "dap/json_text.h"
#include "dap/session.h"

namespace backstep::dap {
namespace {

long to_long(const std::string& s) { return std::strtol(s.c_str(), nullptr, 10); }

std::string basename_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// gdb's errors that mean "this is not an expression", so that the REPL
// tries the text as a gdb command instead.
bool not_an_expression(const std::string& message) {
  return message.rfind("No symbol \"", 0) == 0 || message.find("syntax error") != std::string::npos ||
         message.rfind("A syntax error", 0) == 0;
}

}  // namespace

std::string Session::frame_options(const FrameRef& f) const {
  return " --thread " + std::to_string(f.thread) + " --frame " + std::to_string(f.level);
}

std::optional<Session::FrameRef> Session::frame_of(const llvm::json::Object& args) const {
  auto id = args.getInteger("frameId");
  if (!id || *id < 1 || static_cast<std::size_t>(*id) > frames_.size()) return std::nullopt;
  return frames_[static_cast<std::size_t>(*id - 1)];
}

long Session::add_ref(Ref ref) {
  refs_.push_back(std::move(ref));
  return static_cast<long>(refs_.size());
}

const Session::Ref* Session::find_ref(int64_t id) const {
  if (id < 1 || static_cast<std::size_t>(id) > refs_.size()) return nullptr;
  return &refs_[static_cast<std::size_t>(id - 1)];
}

Reply Session::threads(const llvm::json::Object&) {
  if (!gdb_) return llvm::json::Object{{"threads", llvm::json::Array{}}};
  auto r = mi_checked("-thread-info");
  if (auto* f = std::get_if<Failure>(&r)) return *f;
  llvm::json::Array out;
  if (const mi::Value* list = std::get<mi::Record>(r).results.get("threads"); list && list->list()) {
    for (const mi::Value& t : *list->list()) {
      std::string name = t.text("name");
      std::string target_id = t.text("target-id");
      out.push_back(llvm::json::Object{{"id", to_long(t.text("id"))},
                                       {"name", json_text(name.empty() ? target_id : name + " (" + target_id + ")")}});
    }
  }
  return llvm::json::Object{{"threads", std::move(out)}};
}

Reply Session::stack_trace(const llvm::json::Object& args) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  if (running_) return Failure{"the program is running"};
  auto thread = args.getInteger("threadId");
  if (!thread) return Failure{"stackTrace: no threadId"};
  int64_t start = args.getInteger("startFrame").getValueOr(0);
  int64_t levels = args.getInteger("levels").getValueOr(0);
  if (levels <= 0) levels = 1000;
  // One frame more than asked tells whether the client may ask for more.
  auto r = mi_checked("-stack-list-frames --thread " + std::to_string(*thread) + " " + std::to_string(start) + " " +
                      std::to_string(start + levels));
  if (auto* f = std::get_if<Failure>(&r)) return *f;
  llvm::json::Array out;
  int64_t count = 0;
  bool more = false;
  if (const mi::Value* stack = std::get<mi::Record>(r).results.get("stack"); stack && stack->list()) {
    for (const mi::Value& item : *stack->list()) {
      const mi::Value* f = item.get("frame");
      if (!f) continue;
      if (count == levels) {
        more = true;
        break;
      }
      ++count;
      frames_.push_back(FrameRef{*thread, to_long(f->text("level"))});
      std::string func = f->text("func", "??");
      llvm::json::Object frame{{"id", static_cast<int64_t>(frames_.size())},
                               {"name", json_text(func)},
                               {"line", to_long(f->text("line", "0"))},
                               {"column", 0},
                               {"instructionPointerReference", json_text(f->text("addr"))}};
      std::string file = f->text("fullname");
      if (!file.empty()) {
        frame["source"] = llvm::json::Object{{"name", json_text(basename_of(file))}, {"path", json_text(file)}};
        frame["column"] = 1;
      } else {
        frame["presentationHint"] = "subtle";  // no line information: library code
        if (!f->text("from").empty()) frame["moduleId"] = json_text(f->text("from"));
      }
      out.push_back(std::move(frame));
    }
  }
  return llvm::json::Object{{"stackFrames", std::move(out)}, {"totalFrames", start + count + (more ? 1 : 0)}};
}

Reply Session::scopes(const llvm::json::Object& args) {
  std::optional<FrameRef> frame = frame_of(args);
  if (!frame) return Failure{"scopes: unknown frameId (frames are valid until the program runs)"};
  long locals = add_ref(ScopeRef{*frame});
  return llvm::json::Object{{"scopes", llvm::json::Array{llvm::json::Object{
                                           {"name", "Locals"},
                                           {"presentationHint", "locals"},
                                           {"variablesReference", locals},
                                           {"expensive", false}}}}};
}

// A pretty printer's container is "{...}" as a variable object: its
// printer's own summary ("std::vector of length 4, capacity 4") is what gdb
// prints before the elements.
std::string Session::summary_of(const std::string& varobj, const FrameRef& frame) {
  auto path = mi_checked("-var-info-path-expression " + varobj);
  if (std::holds_alternative<Failure>(path)) return "{...}";
  std::string expression = std::get<mi::Record>(path).results.text("path_expr");
  auto value = mi_checked("-data-evaluate-expression" + frame_options(frame) + " " + mi::quote(expression));
  if (std::holds_alternative<Failure>(value)) return "{...}";
  std::string text = std::get<mi::Record>(value).results.text("value");
  std::size_t elements = text.find(" = {");
  if (elements != std::string::npos) text.resize(elements);
  return text.empty() ? "{...}" : text;
}

std::string member_expression(const std::string& parent, const std::string& parent_type,
                                     const std::string& exp) {
  if (!exp.empty() && exp[0] == '[') return parent + exp;
  if (!exp.empty() && (exp[0] == '*' || std::isdigit(static_cast<unsigned char>(exp[0])))) {
    return parent + "[" + exp + "]";
  }
  bool pointer = !parent_type.empty() && parent_type.back() == '*';
  return parent + (pointer ? "->" : ".") + exp;
}

llvm::json::Object Session::variable_of(const mi::Value& v, const std::string& name, const FrameRef& frame,
                                        const std::string& shown) {
  std::string value = v.text("value");
  if (value == "{...}" && v.text("dynamic") == "1") value = summary_of(v.text("name"), frame);
  llvm::json::Object out{{"name", json_text(name)}, {"value", json_text(value)}};
  if (!v.text("type").empty()) out["type"] = json_text(v.text("type"));
  // A pretty printer's container says has_more/dynamic rather than numchild.
  bool has_children = to_long(v.text("numchild", "0")) > 0 || v.text("has_more") == "1" ||
                      (v.text("dynamic") == "1" && v.text("displayhint") != "string");
  out["variablesReference"] =
      has_children ? add_ref(VarobjRef{v.text("name"), frame, shown, v.text("type")}) : 0;
  long count = to_long(v.text("numchild", "0"));
  if (has_children && v.text("displayhint") == "array" && count > 0) out["indexedVariables"] = count;
  return out;
}

// C++'s access groups ("public", "private", "protected") have no type and no
// value of their own: IDEs show their members in their place.
static bool access_group(const mi::Value& child) {
  std::string exp = child.text("exp");
  return child.text("type").empty() && (exp == "public" || exp == "private" || exp == "protected");
}

std::string Session::child_named(const std::string& varobj, const std::string& exp) {
  auto r = mi_checked("-var-list-children " + varobj);
  if (std::holds_alternative<Failure>(r)) return "";
  const mi::Value* list = std::get<mi::Record>(r).results.get("children");
  for (std::size_t i = 0; list && list->list() && i < list->list()->size(); ++i) {
    const mi::Value* c = (*list->list())[i].get("child");
    if (!c) continue;
    if (c->text("exp") == exp) return c->text("name");
    if (access_group(*c)) {
      std::string inner = child_named(c->text("name"), exp);
      if (!inner.empty()) return inner;
    }
  }
  return "";
}

Reply Session::variables(const llvm::json::Object& args) {
  auto id = args.getInteger("variablesReference");
  const Ref* ref = id ? find_ref(*id) : nullptr;
  if (!ref) return Failure{"variables: unknown reference (variables are valid until the program runs)"};
  llvm::json::Array out;
  if (auto* scope = std::get_if<ScopeRef>(ref)) {
    FrameRef frame = scope->frame;  // `ref` may move as references are added
    auto r = mi_checked("-stack-list-variables" + frame_options(frame) + " --no-values");
    if (auto* f = std::get_if<Failure>(&r)) return *f;
    const mi::Value* list = std::get<mi::Record>(r).results.get("variables");
    for (std::size_t i = 0; list && list->list() && i < list->list()->size(); ++i) {
      std::string name = (*list->list())[i].text("name");
      auto v = mi_checked("-var-create" + frame_options(frame) + " - * " + mi::quote(name));
      if (auto* f = std::get_if<Failure>(&v)) {
        out.push_back(llvm::json::Object{{"name", json_text(name)}, {"value", json_text("<" + f->message + ">")},
                                         {"variablesReference", 0}});
        continue;
      }
      const mi::Value& created = std::get<mi::Record>(v).results;
      varobjs_.push_back(created.text("name"));
      llvm::json::Object var = variable_of(created, name, frame, name);
      var["evaluateName"] = json_text(name);
      out.push_back(std::move(var));
    }
    return llvm::json::Object{{"variables", std::move(out)}};
  }
  VarobjRef parent = std::get<VarobjRef>(*ref);
  auto r = mi_checked("-var-list-children --all-values " + parent.varobj + " 0 1000");
  if (auto* f = std::get_if<Failure>(&r)) return *f;
  const mi::Value* children = std::get<mi::Record>(r).results.get("children");
  for (std::size_t i = 0; children && children->list() && i < children->list()->size(); ++i) {
    const mi::Value* c = (*children->list())[i].get("child");
    if (!c) continue;
    std::string exp = c->text("exp");
    if (access_group(*c)) {
      refs_.push_back(VarobjRef{c->text("name"), parent.frame, parent.shown, parent.type});
      Reply inner = variables(llvm::json::Object{{"variablesReference", static_cast<int64_t>(refs_.size())}});
      if (auto* body = std::get_if<llvm::json::Value>(&inner)) {
        if (const llvm::json::Array* vars = body->getAsObject()->getArray("variables")) {
          for (const llvm::json::Value& var : *vars) out.push_back(var);
        }
      }
      continue;
    }
    out.push_back(variable_of(*c, exp, parent.frame, member_expression(parent.shown, parent.type, exp)));
  }
  return llvm::json::Object{{"variables", std::move(out)}};
}

// Watch and hover: an expression's value with its children. The REPL: an
// expression, or else a gdb command (`info registers`, `reverse-finish`,
// `-exec ...` as cppdbg spells it), with what gdb printed as the result.
Reply Session::evaluate(const llvm::json::Object& args) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  auto expression = args.getString("expression");
  if (!expression) return Failure{"evaluate: no expression"};
  std::string text = expression->trim().str();
  bool repl = args.getString("context") == llvm::StringRef("repl");
  if (repl && text.rfind("-exec ", 0) == 0) return console_command(text.substr(6));
  if (running_) return Failure{"the program is running"};
  std::optional<FrameRef> frame = frame_of(args);
  std::string where = frame ? frame_options(*frame) : "";
  auto v = mi_checked("-var-create" + where + " - * " + mi::quote(text));
  if (std::holds_alternative<Failure>(v)) {
    // -var-create says only "unable to create variable object": gdb's
    // evaluator says why.
    auto why = mi_checked("-data-evaluate-expression" + where + " " + mi::quote(text));
    Failure failure = std::holds_alternative<Failure>(why) ? std::get<Failure>(why) : std::get<Failure>(v);
    if (repl && not_an_expression(failure.message)) {
      Reply command = console_command(text);
      // Text that does not parse as an expression was meant as a command:
      // gdb's word on the command is the one to show.
      bool syntax = failure.message.find("syntax error") != std::string::npos;
      if (!std::holds_alternative<Failure>(command) || syntax) return command;
    }
    return failure;
  }
  const mi::Value& created = std::get<mi::Record>(v).results;
  varobjs_.push_back(created.text("name"));
  llvm::json::Object var = variable_of(created, text, frame.value_or(FrameRef{last_thread_.value_or(1), 0}), text);
  llvm::json::Object out{{"result", std::move(*var.get("value"))},
                         {"variablesReference", std::move(*var.get("variablesReference"))}};
  if (auto* type = var.get("type")) out["type"] = std::move(*type);
  return out;
}

Reply Session::console_command(const std::string& command) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  // A command that runs the program (reverse-next, continue) answers
  // ^running; its stop arrives as usual.
  bool was_running = running_;
  forget_stopped_state();
  auto r = mi_checked("-interpreter-exec console " + mi::quote(command));
  std::string printed = capture_;
  if (auto* f = std::get_if<Failure>(&r)) return Failure{printed.empty() ? f->message : printed + f->message};
  if (std::get<mi::Record>(r).klass == "running" && !was_running) {
    running_ = true;
    direction_ = command.rfind("reverse", 0) == 0 || command.find("--reverse") != std::string::npos
                     ? RunDirection::Backward
                     : RunDirection::Forward;
    cause_ = RunCause::Other;
    send_event_after_response("continued", llvm::json::Object{{"threadId", last_thread_.value_or(1)}, {"allThreadsContinued", true}});
  }
  return llvm::json::Object{{"result", json_text(printed)}, {"variablesReference", 0}};
}

Reply Session::set_variable(const llvm::json::Object&) {
  return Failure{"a recording cannot be changed: values are what the program computed when it was recorded"};
}

Reply Session::set_expression(const llvm::json::Object& args) { return set_variable(args); }

}  // namespace backstep::dap
