# Worst-case stack depth of a runtime built with -fstack-usage -fcallgraph-info=su, by
# tools/stack/stack_depth.c. Script mode (cmake -P), at build time or from ctest:
#
#   cmake -DTOOL=stack_depth -DCC=gcc -DSRC=<source dir> -DOBJDIR=<the library's object dir>
#         [-DDEFS="A=1;B=2"] [-DBINARY=<linked program> -DNM=nm] [-DBUDGET_EXECUTE=4096]
#         [-DBUDGET_LOAD=6144] [-DREPORT_ONLY=ON] [-DTITLE=text] [-DOUT=report.txt]
#         [-DWORK=<scratch dir>] -P stack_report.cmake
#
# Roots: execute = berth_method_execute, load = berth_program_load. Each translation unit
# of OBJDIR (its .ci file names the source) is preprocessed again with CC -E -DDEFS so that
# the tool can tell which functions an indirect call may reach (see the tool's comment).
# With BINARY, only the functions linked into it count as targets of indirect calls (a
# runtime cut down to some kernels, --gc-sections). A budget makes the run fail (exit 1)
# when the root needs more, or recurses; REPORT_ONLY prints the budgets' verdicts without
# failing (the build step).
foreach(v TOOL CC SRC OBJDIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "stack_report.cmake: ${v} is not set")
  endif()
endforeach()
if(NOT WORK)
  set(WORK ${OBJDIR}/stack)
endif()
file(MAKE_DIRECTORY ${WORK})
file(GLOB_RECURSE cis ${OBJDIR}/*.ci)
if(NOT cis)
  message(FATAL_ERROR "stack_report.cmake: no .ci files under ${OBJDIR} (built without -fcallgraph-info=su?)")
endif()
list(SORT cis)
set(defs)
foreach(d ${DEFS})
  list(APPEND defs -D${d})
endforeach()
set(pre)
set(k 0)
foreach(ci ${cis})
  file(STRINGS ${ci} first LIMIT_COUNT 1 REGEX "^graph: { title: \"")
  string(REGEX REPLACE "^graph: { title: \"([^\"]*)\".*" "\\1" source "${first}")
  get_filename_component(base ${source} NAME)
  set(i ${WORK}/${k}_${base}.i)
  math(EXPR k "${k} + 1")
  execute_process(COMMAND ${CC} -E ${defs} -I${SRC}/include -I${SRC}/src ${source} -o ${i}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "stack_report.cmake: ${CC} -E ${source} failed: ${err}")
  endif()
  list(APPEND pre --pre ${i})
endforeach()
set(linked)
if(BINARY AND NM)
  execute_process(COMMAND ${NM} ${BINARY} OUTPUT_FILE ${WORK}/linked.txt RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "stack_report.cmake: ${NM} ${BINARY} failed")
  endif()
  set(linked --linked ${WORK}/linked.txt)
endif()
set(exec_root execute=berth_method_execute)
if(BUDGET_EXECUTE)
  string(APPEND exec_root ":${BUDGET_EXECUTE}")
endif()
set(load_root load=berth_program_load)
if(BUDGET_LOAD)
  string(APPEND load_root ":${BUDGET_LOAD}")
endif()
if(NOT TITLE)
  get_filename_component(TITLE ${OBJDIR} NAME)
endif()
execute_process(COMMAND ${TOOL} --root ${exec_root} --root ${load_root} --slots berth_op_def_t=berth_op_def
                        --strip ${SRC}/ ${linked} ${pre} ${cis}
                OUTPUT_VARIABLE report ERROR_VARIABLE err RESULT_VARIABLE rc)
set(report "${TITLE} (${CC}, -Os; the C library not counted):\n${report}")
if(OUT)
  file(WRITE ${OUT} "${report}")
endif()
message("${err}${report}")
if(rc EQUAL 1 AND REPORT_ONLY)
  message(WARNING "stack_report.cmake: ${TITLE}: over budget or unbounded (see above)")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "stack_report.cmake: ${TITLE}: over budget or unbounded, or the tool failed (exit ${rc})")
endif()
