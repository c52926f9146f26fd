#!/bin/sh
# Writes docs/cli.md, the command-line reference, from the tool's own help texts
# (berth help, berth help COMMAND), so the two never disagree. tests/cli/docs_cli.sh checks
# that the committed file is what this writes.
#   tools/docs/gen-cli.sh BERTH > docs/cli.md
set -eu
BERTH=$1
cat <<'HEAD'
# berth command-line reference

Generated from the tool's help by `tools/docs/gen-cli.sh build/berth > docs/cli.md`
(`tests/cli/docs_cli.sh` fails when it is out of date). Exit status of every command: 0
success, 1 the command failed, 2 the command line is wrong. Every command also takes
`--max-input-size SIZE`. The README's "Command-line tool" section explains the behaviour
shared by all commands (output files complete or absent, budgets, progress).

## Overview

```
HEAD
"$BERTH" help
echo '```'
for c in run check plan compile dis onnx-test fuzz ops; do
  printf '\n## berth %s\n\n```\n' "$c"
  "$BERTH" help "$c"
  echo '```'
done
