#!/usr/bin/env bash
# Fails when an #include points up or across the layers of docs/development.md:
#   shared <- codec, io <- app <- cli, extender, kubelet-hook (none including another); sim
#   sits beside codec and io and is used by cli only. Inside extender/, the rooms of
#   extender/README.md: json, view, serving <- kube <- the areas (none including another).
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

# The rooms of extender/ (extender/README.md): the lower rooms, then the areas, which sit side
# by side and never include each other. Files in extender/ itself compose them all.
# room: the rooms it may include from (besides itself)
below="json view serving kube"
declare -A rooms=(
  [json]=""
  [view]=""
  [serving]=""
  [kube]="json view"
  [scheduler]="$below"
  [reports]="$below"
  [actuation]="$below"
  [admission]="$below"
  [status]="$below"
  [repack]="$below"
)
for room in "${!rooms[@]}"; do
  while IFS=: read -r file line include; do
    target=$(sed -E 's/.*#include "extender\/([^/"]+)\/.*/\1/' <<<"$include")
    [[ $target == "$room" ]] && continue
    if [[ " ${rooms[$room]} " != *" $target "* ]]; then
      echo "$file:$line: extender/$room/ may not include extender/$target/ ($include)"
      bad=1
    fi
  done < <(git grep -nE '^#include "extender/' -- "extender/$room" || true)
done
# kubelet-hook/transport/ (the NRI wire) includes nothing else of kubelet-hook/.
while IFS=: read -r file line include; do
  echo "$file:$line: kubelet-hook/transport/ may include only itself ($include)"
  bad=1
done < <(git grep -nE '^#include "kubelet-hook/' -- kubelet-hook/transport |
  grep -v '#include "kubelet-hook/transport/' || true)
# Every folder of extender/ is a room this script knows (a new one must be placed above).
for dir in extender/*/; do
  room=$(basename "$dir")
  if [[ -z ${rooms[$room]+set} ]]; then
    echo "$dir: not a room of scripts/check-layers.sh; say what it may include"
    bad=1
  fi
done
if [[ $bad == 0 ]]; then echo "layers: ok"; fi
exit $bad
