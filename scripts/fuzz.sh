#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (preset `fuzz`: ASan + UBSan + coverage) and runs each
# for a bounded time on its seeds and the regression inputs. New inputs go to a temporary
# corpus; a crash, leak or timeout leaves its input in build/fuzz/ and fails the run.
#
# Usage: FUZZ_SECONDS=60 bash scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target extender_args_fuzzer quantity_fuzzer nri_wire_fuzzer \
  report_fuzzer admission_fuzzer checkpoint_fuzzer pod_watch_fuzzer h2_meter_fuzzer

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/extender" "$work/quantity" "$work/nri" "$work/nri-seeds" "$work/report" "$work/admission" \
  "$work/checkpoint" "$work/pod-watch" "$work/h2"
# The recorded containerd streams, each prefixed with a chunk-size byte.
for f in tests/testdata/nri-wire/*/runtime-to-plugin.bin tests/testdata/nri-wire/*/plugin-to-runtime.bin; do
  { printf '\x05'; cat "$f"; } >"$work/nri-seeds/$(echo "$f" | tr / _)"
done

run() {
  local name="$1"; shift
  echo "== fuzzing $name for ${seconds}s"
  "./build/fuzz/fuzz/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=131072 -print_final_stats=1 -artifact_prefix="build/fuzz/$name-" "$@"
}

run extender_args_fuzzer "$work/extender" tests/testdata/kube-scheduler-extender \
  tests/testdata/fuzz-regressions/extender
run quantity_fuzzer "$work/quantity" tests/testdata/fuzz-regressions/quantity
run nri_wire_fuzzer "$work/nri" "$work/nri-seeds" tests/testdata/fuzz-regressions/nri
run report_fuzzer "$work/report" tests/testdata/fuzz-regressions/report
run admission_fuzzer "$work/admission" tests/testdata/fuzz-regressions/admission
run checkpoint_fuzzer "$work/checkpoint" tests/testdata/fuzz-regressions/checkpoint
run pod_watch_fuzzer "$work/pod-watch" tests/testdata/fuzz-regressions/pod-watch
run h2_meter_fuzzer "$work/h2" tests/testdata/fuzz-regressions/h2
echo "fuzzing: no crash, leak or timeout"
