# The runtime library (libberth_runtime.a) must use neither the heap nor stdio nor exit:
# every symbol it needs from outside itself is checked against a deny list.
#   sh check_runtime_symbols.sh NM LIBRARY
NM=$1
LIB=$2
tmp=${TMPDIR:-/tmp}/berth_rt_syms.$$
"$NM" --defined-only "$LIB" | awk 'NF >= 3 { print $3 }' | sort -u > "$tmp.def"
"$NM" -u "$LIB" | awk 'NF >= 2 { print $2 }' | sort -u > "$tmp.undef"
comm -23 "$tmp.undef" "$tmp.def" > "$tmp.ext"
bad=$(grep -E '^_*(malloc|calloc|realloc|reallocarray|free|aligned_alloc|posix_memalign|memalign|valloc|strdup|strndup|(.*printf.*)|puts|fputs|fputc|putc|putchar|fwrite|fread|fopen|fdopen|freopen|fclose|fflush|fseek|ftell|fgets|fgetc|getc|perror|stdin|stdout|stderr|exit|_exit|abort)(_chk)?$' "$tmp.ext")
n=$(wc -l < "$tmp.ext")
rm -f "$tmp.def" "$tmp.undef" "$tmp.ext"
if [ $n -eq 0 ]; then
  echo "FAIL: no external symbols found in $LIB (is $NM working?)"
  exit 1
fi
if [ -n "$bad" ]; then
  echo "FAIL: $LIB references the heap, stdio or exit:"
  echo "$bad"
  exit 1
fi
echo "ok: $LIB needs $n external symbols, none from the heap, stdio or exit"
