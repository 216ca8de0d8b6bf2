#!/bin/bash
# The checked-in topologies are exactly what the generator makes today.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${IBUNION_SRC:-$here/../..}
ibunion=${IBUNION_BUILD:-$src}/ibunion
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$src/topologies/regenerate.sh" "$ibunion" "$tmp"
status=0
for f in "$src"/topologies/*.net "$src"/topologies/*.guid2lid; do
  name=$(basename "$f")
  if ! cmp -s "$f" "$tmp/$name"; then
    echo "FAIL: topologies/$name differs from what the generator writes now"
    status=1
  fi
done
count=$(ls "$tmp" | wc -l)
[ "$count" -eq "$(ls "$src"/topologies/*.net "$src"/topologies/*.guid2lid | wc -l)" ] || {
  echo "FAIL: regenerate.sh makes $count files, topologies/ holds a different set"; status=1; }
[ $status -eq 0 ] && echo "PASS: $count topology files match the generator"
exit $status
