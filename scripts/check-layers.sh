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
bad=0
# check PREFIX PART ALLOWED: an include of PREFIX<target>/... or PREFIX<file> in PREFIX<PART>/
# must name PART itself or one of ALLOWED.
check() {
  local prefix=$1 part=$2 allowed=$3 pattern=${4:-$1}
  while IFS=: read -r file line include; do
    target=$(sed -E "s|^#include \"${prefix}([^/\"]+).*|\1|" <<<"$include")
    [[ $target == "$part" ]] && continue
    if [[ " $allowed " != *" $target "* ]]; then
      echo "$file:$line: ${prefix}$part/ may not include ${prefix}$target ($include)"
      bad=1
    fi
  done < <(git grep -nE "^#include \"$pattern" -- "${prefix}$part" || true)
}
for folder in "${!allowed[@]}"; do
  check "" "$folder" "${allowed[$folder]}" "(shared|codec|io|sim|app|cli|extender|kubelet-hook)/"
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
for room in "${!rooms[@]}"; do check "extender/" "$room" "${rooms[$room]}"; done
# kubelet-hook/transport/ (the NRI wire) includes nothing else of kubelet-hook/.
check "kubelet-hook/" "transport" ""
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
