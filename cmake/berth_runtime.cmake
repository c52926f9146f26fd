# The runtime's sources and small embedded runtimes built from them. Included by berth's own
# CMakeLists.txt (sources in the tree) and by the installed package's berthConfig.cmake
# (sources installed under share/berth/runtime); BERTH_RUNTIME_ROOT names the folder that
# holds include/ and src/ when this file is included.
set_property(GLOBAL PROPERTY BERTH_RUNTIME_ROOT "${BERTH_RUNTIME_ROOT}")

# The runtime side's folders, bottom up (no stdio, no malloc): base, kernels, the exec
# program contract and its verifier, the program file reader, the interpreter and API.
set(BERTH_RUNTIME_FOLDERS base kernels program format runtime)
set_property(GLOBAL PROPERTY BERTH_RUNTIME_FOLDERS "${BERTH_RUNTIME_FOLDERS}")

# berth_runtime_sources(OUT): every .c of the runtime folders.
function(berth_runtime_sources out)
  get_property(root GLOBAL PROPERTY BERTH_RUNTIME_ROOT)
  get_property(folders GLOBAL PROPERTY BERTH_RUNTIME_FOLDERS)
  set(globs)
  foreach(dir ${folders})
    list(APPEND globs ${root}/src/${dir}/*.c)
  endforeach()
  file(GLOB src CONFIGURE_DEPENDS ${globs})
  set(${out} ${src} PARENT_SCOPE)
endfunction()

# berth_add_runtime(NAME [OPS_HEADER FILE]): a small runtime for embedded programs: -Os, one
# section per function, and only the kernels FILE lists (`berth compile --ops-header`; all
# without it); link it with --gc-sections (berth_link_small) so that the unused kernels are
# dropped. (Kernel scratch, such as conv's patch buffer, is planned in the program's arena:
# the CONV_SCRATCH_BYTES N of older versions sized a stack buffer that no longer exists, and
# is accepted and ignored with a warning.)
function(berth_add_runtime name)
  cmake_parse_arguments(ARG "" "OPS_HEADER;CONV_SCRATCH_BYTES" "" ${ARGN})
  if(ARG_CONV_SCRATCH_BYTES)
    message(WARNING "berth_add_runtime(${name}): CONV_SCRATCH_BYTES is ignored: conv's scratch is planned in the arena")
  endif()
  get_property(root GLOBAL PROPERTY BERTH_RUNTIME_ROOT)
  berth_runtime_sources(src)
  add_library(${name} STATIC ${src})
  target_include_directories(${name} PUBLIC ${root}/include PRIVATE ${root}/src)
  target_link_libraries(${name} PUBLIC m)
  target_compile_options(${name} PRIVATE $<$<NOT:$<CONFIG:Debug>>:-Os> -ffunction-sections -fdata-sections)
  if(BERTH_HAVE_CALLGRAPH_INFO)
    target_compile_options(${name} PRIVATE -fstack-usage -fcallgraph-info=su)
  endif()
  if(ARG_OPS_HEADER)
    target_compile_definitions(${name} PRIVATE "BERTH_OPS_HEADER=\"${ARG_OPS_HEADER}\"")
  endif()
endfunction()

# Links target with --gc-sections, so that a small runtime's unused kernels are dropped.
function(berth_link_small target)
  target_link_options(${target} PRIVATE -Wl,--gc-sections)
endfunction()
