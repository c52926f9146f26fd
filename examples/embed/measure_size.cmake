# Writes the runtime's size (text + data, from `size`) to OUT and prints it:
#  - libberth_runtime.a: every object of the runtime (loader, verifier, interpreter,
#    sanitizer, every kernel), the upper bound of what a program links;
#  - berth_embed: the whole example program as linked (the runtime plus main and the C
#    start-up code; the shared C library is not counted);
#  - berth_embed_small: the same program against the runtime cut down for it (-Os, only
#    the seed's kernels, --gc-sections).
foreach(f RUNTIME EMBED SMALL)
  execute_process(COMMAND ${SIZE_TOOL} -t ${${f}} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    return()
  endif()
  string(REGEX MATCHALL "[^\n]+" lines "${out}")
  list(GET lines -1 last)
  string(REGEX REPLACE "^[ \t]*([0-9]+)[ \t]+([0-9]+)[ \t]+([0-9]+).*" "\\1;\\2;\\3" nums "${last}")
  list(GET nums 0 text)
  list(GET nums 1 data)
  list(GET nums 2 bss)
  math(EXPR td "${text} + ${data}")
  set(${f}_LINE "text ${text}, data ${data} (text + data ${td} bytes), bss ${bss}")
endforeach()
get_filename_component(rname ${RUNTIME} NAME)
get_filename_component(ename ${EMBED} NAME)
get_filename_component(sname ${SMALL} NAME)
set(report "${rname} (all runtime objects): ${RUNTIME_LINE}\n${ename} (runtime + example main, shared libc not counted): ${EMBED_LINE}\n${sname} (the same, runtime cut down to the seed's kernels, -Os, --gc-sections): ${SMALL_LINE}\n")
file(WRITE ${OUT} "${report}")
message(STATUS "berth runtime size:\n${report}")
