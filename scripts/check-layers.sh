#!/usr/bin/env bash
# Fails when an #include points up or across the layers of docs/development.md:
#   shared <- codec, io <- app <- cli, extender, kubelet-hook (none including another); sim
#   sits beside codec and io and is used by cli only.
set -euo pipefail
cd "$(dirname "$0")/.."

# folder: the project folders it may include from (besides itself and proto-generated code)
declare -A allowed=(
  [shared]=""
  [codec]="shared"
  [io]="shared"
  [sim]="shared"
  [app]="shared codec io"
  [cli]="shared codec io app sim"
  [extender]="shared codec io app"
  [kubelet-hook]="shared codec io app"
)
project="shared|codec|io|sim|app|cli|extender|kubelet-hook"
bad=0
for folder in "${!allowed[@]}"; do
  while IFS=: read -r file line include; do
    target=$(sed -E 's/.*#include "([^/]+)\/.*/\1/' <<<"$include")
    [[ $target == "$folder" ]] && continue
    if [[ " ${allowed[$folder]} " != *" $target "* ]]; then
      echo "$file:$line: $folder/ may not include $target/ ($include)"
      bad=1
    fi
  done < <(git grep -nE "^#include \"($project)/" -- "$folder" || true)
done
if [[ $bad == 0 ]]; then echo "layers: ok"; fi
exit $bad
