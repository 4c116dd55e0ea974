# Sourced by every e2e suite and the benchmark scripts: check results, polling and loopback
# ports. pass/fail expect `failures` (a counter).
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
# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Whether something accepts connections on 127.0.0.1:PORT.
port_open() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
