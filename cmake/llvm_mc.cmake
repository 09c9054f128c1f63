# LLVM's machine-code layer, for decoding x86 instructions
# (engine/core/x86_decoder.cc): the static libraries of LLVM 14 (Debian's
# llvm-14-dev, installed by scripts/setup), found through llvm-config, so
# that backstep neither loads the 100 MB shared libLLVM at start-up nor
# depends on its exact soname.
find_program(LLVM_CONFIG NAMES llvm-config-14 llvm-config REQUIRED)
execute_process(COMMAND ${LLVM_CONFIG} --includedir OUTPUT_VARIABLE LLVM_MC_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${LLVM_CONFIG} --libdir OUTPUT_VARIABLE LLVM_MC_LIBDIR OUTPUT_STRIP_TRAILING_WHITESPACE
                COMMAND_ERROR_IS_FATAL ANY)
# The static archives of LLVM `components`, by path, in llvm-config's order.
function(backstep_llvm_static_libs out)
  execute_process(COMMAND ${LLVM_CONFIG} --link-static --libnames ${ARGN}
                  OUTPUT_VARIABLE names OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  separate_arguments(names)
  set(libs "")
  foreach(name ${names})
    list(APPEND libs ${LLVM_MC_LIBDIR}/${name})
  endforeach()
  set(${out} ${libs} PARENT_SCOPE)
endfunction()
backstep_llvm_static_libs(LLVM_MC_LIBS x86disassembler x86desc x86info mcdisassembler)
find_library(TINFO_LIBRARY tinfo REQUIRED)
add_library(backstep_llvm_mc INTERFACE)
target_include_directories(backstep_llvm_mc SYSTEM INTERFACE ${LLVM_MC_INCLUDE})
# The archives depend on each other in llvm-config's order; the group lets
# the linker go round them.
target_link_libraries(backstep_llvm_mc INTERFACE -Wl,--start-group ${LLVM_MC_LIBS} -Wl,--end-group
                      ZLIB::ZLIB ${TINFO_LIBRARY} Threads::Threads ${CMAKE_DL_LIBS})

# LLVM's Support library alone (its JSON, for the DAP front: dap/), linked
# statically in the same way.
backstep_llvm_static_libs(LLVM_SUPPORT_LIBS support demangle)
add_library(backstep_llvm_support INTERFACE)
target_include_directories(backstep_llvm_support SYSTEM INTERFACE ${LLVM_MC_INCLUDE})
target_link_libraries(backstep_llvm_support INTERFACE ${LLVM_SUPPORT_LIBS} ZLIB::ZLIB ${TINFO_LIBRARY} Threads::Threads
                      ${CMAKE_DL_LIBS})
