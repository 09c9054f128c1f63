# The link graph of backstep's libraries follows the layout of
# docs/design.md ("Map of the code"): a library never links, even through another
# one, a library above it. Checked at configure time over each library's whole
# link closure; tests/check_layering.py checks the same layering for includes.

# backstep_* targets that `target` links, directly or through others.
function(backstep_link_closure target out)
  set(seen "")
  set(todo ${target})
  while(todo)
    list(POP_FRONT todo t)
    if(NOT TARGET ${t} OR t IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${t})
    get_target_property(type ${t} TYPE)
    set(deps "")
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(direct ${t} LINK_LIBRARIES)
      if(direct)
        list(APPEND deps ${direct})
      endif()
    endif()
    get_target_property(iface ${t} INTERFACE_LINK_LIBRARIES)
    if(iface)
      list(APPEND deps ${iface})
    endif()
    foreach(d IN LISTS deps)
      # PRIVATE dependencies of static libraries appear as $<LINK_ONLY:name>.
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" d "${d}")
      if(d MATCHES "^backstep_")
        list(APPEND todo ${d})
      endif()
    endforeach()
  endwhile()
  list(REMOVE_ITEM seen ${target})
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# Fails the configuration if `target` reaches any of the libraries after FORBIDS.
function(backstep_forbid_links target)
  cmake_parse_arguments(arg "" "WHY" "FORBIDS" ${ARGN})
  backstep_link_closure(${target} closure)
  set(bad "")
  foreach(f IN LISTS arg_FORBIDS)
    if(f IN_LIST closure)
      list(APPEND bad ${f})
    endif()
  endforeach()
  if(bad)
    message(FATAL_ERROR "layering: ${target} links ${bad} (all it links: ${closure}); ${arg_WHY}")
  endif()
endfunction()

set(backstep_engine_above_core backstep_trace backstep_record backstep_replay backstep_timeline)
backstep_forbid_links(backstep_cpu_state
  FORBIDS backstep_values backstep_core ${backstep_engine_above_core} backstep_gdbserver backstep_rsp
  WHY "cpu_state.h is header-only and standard library only")
backstep_forbid_links(backstep_values
  FORBIDS backstep_core ${backstep_engine_above_core} backstep_gdbserver backstep_rsp backstep_syscalls
  WHY "values/ holds plain types and the log: it links nothing of backstep's but cpu_state.h")
backstep_forbid_links(backstep_core
  FORBIDS ${backstep_engine_above_core} backstep_gdbserver backstep_rsp
  WHY "engine/core is the bottom layer")
backstep_forbid_links(backstep_trace
  FORBIDS backstep_core backstep_record backstep_replay backstep_timeline backstep_gdbserver backstep_rsp
  WHY "the trace format needs only the standard library, zlib and cpu_state.h")
backstep_forbid_links(backstep_gdbserver
  FORBIDS backstep_core ${backstep_engine_above_core}
  WHY "gdbserver/ sees the engine through DebugTarget and the plain values only (no ptrace, libelf or LLVM); cli/ builds the ReplayTimeline")
backstep_forbid_links(backstep_rsp
  FORBIDS backstep_cpu_state backstep_core ${backstep_engine_above_core} backstep_gdbserver
  WHY "the RSP codec links only the standard library")
backstep_forbid_links(backstep_preload
  FORBIDS backstep_cpu_state backstep_core ${backstep_engine_above_core} backstep_gdbserver backstep_rsp
  WHY "the preload library runs inside the recorded program and links nothing"
)
backstep_forbid_links(backstep_dap_codec
  FORBIDS backstep_values backstep_core ${backstep_engine_above_core} backstep_gdbserver backstep_rsp backstep_dap
  WHY "the DAP and MI codecs link only the standard library")
backstep_forbid_links(backstep_dap
  FORBIDS backstep_core ${backstep_engine_above_core} backstep_gdbserver backstep_rsp
  WHY "the DAP front drives gdb; cli/dap_command.cc gives it the replay server")
