// The packet table: every packet name the parser knows, written once, with
// its parser. The longest matching name wins ("vCont?" over "vCont").
#include "gdbserver/rsp/request.h"

#include <array>

#include "gdbserver/rsp/request_parsers.h"

namespace backstep::rsp {

namespace {

using namespace detail;

enum class Match : std::uint8_t {
  // The arguments follow the name directly: "m10,4", "qRegisterInfo1a".
  Raw,
  // The name is a word: it ends the payload or a ':', ';' or ',' follows
  // ("qC" does not match "qCRC:...").
  Word,
};

struct Entry {
  std::string_view name;
  Match match;
  Parser parse;
};

constexpr auto kTable = std::to_array<Entry>({
    // Connection set-up.
    {"qSupported", Match::Word, parse_query_supported},
    {"vMustReplyEmpty", Match::Word, parse_no_args<MustReplyEmpty>},
    {"QStartNoAckMode", Match::Word, parse_no_args<StartNoAckMode>},
    {"!", Match::Raw, parse_no_args<EnableExtendedMode>},
    {"QThreadSuffixSupported", Match::Word, parse_no_args<ThreadSuffixSupported>},
    {"QListThreadsInStopReply", Match::Word, parse_no_args<ListThreadsInStopReply>},
    {"QEnableErrorStrings", Match::Word, parse_no_args<EnableErrorStrings>},
    {"QNonStop", Match::Word, parse_set_non_stop},
    // Queries.
    {"?", Match::Raw, parse_no_args<QueryStopReason>},
    {"qAttached", Match::Word, parse_query_attached},
    {"qOffsets", Match::Word, parse_no_args<QueryOffsets>},
    {"qTStatus", Match::Word, parse_no_args<QueryTraceStatus>},
    {"qHostInfo", Match::Word, parse_no_args<QueryHostInfo>},
    {"qProcessInfo", Match::Word, parse_no_args<QueryProcessInfo>},
    {"qMemoryRegionInfo", Match::Word, parse_query_memory_region},
    {"qWatchpointSupportInfo", Match::Word, parse_query_watchpoint_support},
    {"qShlibInfoAddr", Match::Word, parse_no_args<QueryShlibInfoAddr>},
    {"qRegisterInfo", Match::Raw, parse_query_register_info},
    {"qSymbol", Match::Word, parse_query_symbol},
    {"qRcmd", Match::Word, parse_monitor_command},
    // Threads.
    {"qC", Match::Word, parse_no_args<QueryCurrentThread>},
    {"qfThreadInfo", Match::Word, parse_no_args<ThreadInfoFirst>},
    {"qsThreadInfo", Match::Word, parse_no_args<ThreadInfoNext>},
    {"jThreadsInfo", Match::Word, parse_no_args<ThreadsInfoJson>},
    {"T", Match::Raw, parse_thread_alive},
    {"qThreadExtraInfo", Match::Word, parse_thread_extra_info},
    {"qGetTLSAddr", Match::Word, parse_query_tls_address},
    {"H", Match::Raw, parse_set_thread},
    // Registers.
    {"g", Match::Raw, parse_read_registers},
    {"G", Match::Raw, parse_write_registers},
    {"p", Match::Raw, parse_read_register},
    {"P", Match::Raw, parse_write_register},
    {"QSaveRegisterState", Match::Word, parse_save_register_state},
    {"QRestoreRegisterState", Match::Word, parse_restore_register_state},
    // Memory.
    {"m", Match::Raw, parse_read_memory},
    {"x", Match::Raw, parse_read_memory_binary},
    {"M", Match::Raw, parse_write_memory},
    {"X", Match::Raw, parse_write_memory_binary},
    {"_M", Match::Raw, parse_allocate_memory},
    {"_m", Match::Raw, parse_deallocate_memory},
    {"qSearch:memory", Match::Word, parse_search_memory},
    // Breakpoints and watchpoints.
    {"Z", Match::Raw, parse_insert_breakpoint},
    {"z", Match::Raw, parse_remove_breakpoint},
    // Execution.
    {"vCont?", Match::Word, parse_no_args<VContQuery>},
    {"vCont", Match::Word, parse_vcont},
    {"c", Match::Raw, parse_continue},
    {"C", Match::Raw, parse_continue_with_signal},
    {"s", Match::Raw, parse_step},
    {"S", Match::Raw, parse_step_with_signal},
    {"bc", Match::Word, parse_no_args<ReverseContinue>},
    {"bs", Match::Word, parse_no_args<ReverseStep>},
    {"k", Match::Raw, parse_no_args<Kill>},
    {"vKill", Match::Word, parse_vkill},
    {"D", Match::Raw, parse_detach},
    {"vRun", Match::Word, parse_vrun},
    // Signals, syscalls, the environment of the next vRun.
    {"QPassSignals", Match::Word, parse_pass_signals},
    {"QProgramSignals", Match::Word, parse_program_signals},
    {"QCatchSyscalls", Match::Word, parse_catch_syscalls},
    {"QDisableRandomization", Match::Word, parse_disable_randomization},
    {"QStartupWithShell", Match::Word, parse_startup_with_shell},
    {"QEnvironmentReset", Match::Word, parse_no_args<EnvironmentReset>},
    {"QEnvironmentHexEncoded", Match::Word, parse_environment_hex_encoded},
    {"QSetWorkingDir", Match::Word, parse_set_working_dir},
    // Object transfers and host I/O (each with its own sub-table).
    {"qXfer", Match::Word, parse_xfer},
    {"vFile", Match::Word, parse_vfile},
});

bool matches(const Entry& entry, std::string_view payload) {
  if (!payload.starts_with(entry.name)) return false;
  if (entry.match == Match::Raw) return true;
  std::string_view rest = payload.substr(entry.name.size());
  return rest.empty() || rest.front() == ':' || rest.front() == ';' || rest.front() == ',';
}

// What to call a packet nobody knows: its first letter for the one-letter
// packets, the word before the first separator for the others, plus the
// object / operation for qXfer and vFile.
std::string unknown_name(std::string_view payload) {
  if (payload.empty()) return {};
  if (std::string_view("qQvj_").find(payload.front()) == std::string_view::npos) {
    return std::string(payload.substr(0, 1));
  }
  std::size_t words = payload.starts_with("qXfer:") ? 3 : payload.starts_with("vFile:") ? 2 : 1;
  std::size_t end = 0;
  for (std::size_t i = 0; i < words; ++i) {
    std::size_t next = payload.find_first_of(":;,", i == 0 ? 0 : end + 1);
    end = next == std::string_view::npos ? payload.size() : next;
    if (end == payload.size() || payload[end] != ':') break;
  }
  return std::string(payload.substr(0, end));
}

}  // namespace

ParseResult parse_request(std::string_view payload) {
  const Entry* best = nullptr;
  for (const Entry& entry : kTable) {
    if (matches(entry, payload) && (!best || entry.name.size() > best->name.size())) {
      best = &entry;
    }
  }
  if (!best) return Request{Unknown{unknown_name(payload)}};
  ParseResult result = best->parse(payload.substr(best->name.size()));
  if (auto* error = std::get_if<ParseError>(&result)) {
    error->what = std::string(best->name) + ": " + error->what;
  }
  return result;
}

std::vector<std::string_view> known_packet_names() {
  std::vector<std::string_view> names;
  for (const Entry& entry : kTable) names.push_back(entry.name);
  return names;
}

}  // namespace backstep::rsp
