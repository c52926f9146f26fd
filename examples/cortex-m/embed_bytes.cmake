# cmake -DIN=FILE -DOUT=FILE.c -DNAME=sym -P embed_bytes.cmake
# Writes FILE's bytes as `const unsigned char sym[]` (64-byte aligned: a .berth file's
# constants are 64-byte aligned in the file and used in place) and `const size_t sym_len`.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" nhex)
math(EXPR n "${nhex} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# 16 bytes a line
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n  " bytes "${bytes}")
file(WRITE ${OUT}.tmp
  "/* Generated from ${IN} by embed_bytes.cmake. */\n"
  "#include <stddef.h>\n\n"
  "_Alignas(64) const unsigned char ${NAME}[${n}] = {\n  ${bytes}\n};\n"
  "const size_t ${NAME}_len = ${n};\n")
# rewrite only on change, so that a rebuild of an unchanged program compiles nothing
configure_file(${OUT}.tmp ${OUT} COPYONLY)
file(REMOVE ${OUT}.tmp)
