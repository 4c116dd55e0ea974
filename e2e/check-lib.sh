# Sourced by every e2e suite: check results and polling. Expects `failures` (a counter).
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# wait_for SECONDS COMMAND...: polls COMMAND every WAIT_INTERVAL seconds (0.2) until it succeeds.
wait_for() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep "${WAIT_INTERVAL:-0.2}"
  done
}
