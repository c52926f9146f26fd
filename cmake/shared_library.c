/* libberth.so is linked from the whole berth_compiler and berth_runtime archives
 * (CMakeLists.txt, berth_shared); a shared library target needs one source of its own. */
typedef int berth_shared_library_unit;
