#!/usr/bin/env python3
"""A test mirror: python's http.server on 127.0.0.1 (a free port) serving ROOT, extended for what a
download must survive: Range requests (206), ETag / If-None-Match (304), and a connection dropped
mid-file. It writes its port to --port-file, logs every GET to --log, and stops by itself after
--lifetime seconds (the test that starts it also stops it).

Usage: mirror-server.py ROOT --port-file FILE [--log FILE] [--drop-after N] [--lifetime S] [--proxy-for HOST]
                        [--proxy-auth USER:PASSWORD]
  --drop-after N: the first full GET of each archive sends the whole Content-Length, then only N
                  bytes, then closes the connection.
  --proxy-for HOST: it is also an HTTP proxy, for HOST only: a request for http://HOST[:port]/PATH (the
                  absolute form a client sends to its proxy) is served as PATH and logged with
                  "via-proxy"; any other absolute address gets 502. HOST need not resolve: only a
                  client that uses the proxy can reach it.
  --proxy-auth USER:PASSWORD: as a proxy, it answers 407 (Proxy-Authenticate: Basic) to a request
                  without these credentials in Proxy-Authorization.
  --tls PEM PORT_FILE: it also serves ROOT over TLS on a second port (written to PORT_FILE) with the
                  certificate and key in PEM (a self-signed one, which a client must refuse).
"""
import argparse, base64, email.utils, functools, http.server, os, ssl, threading, urllib.parse

dropped = set()
lock = threading.Lock()


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def record(self, status, note=""):
        if self.server.log:
            with lock, open(self.server.log, "a") as f:
                via = " via-proxy" if self.proxied else ""
                f.write(f"GET {self.path} {self.headers.get('Range', '-')} {status} {note}{via}\n")

    def proxy_credentials_given(self):
        if not self.server.proxy_auth:
            return True
        expected = "Basic " + base64.b64encode(self.server.proxy_auth.encode()).decode()
        return self.headers.get("Proxy-Authorization") == expected

    def do_GET(self):
        self.proxied = self.path.startswith("http://")
        if self.proxied:
            url = urllib.parse.urlsplit(self.path)
            if url.hostname != self.server.proxy_for:
                self.record(502)
                self.send_error(502)
                return
            if not self.proxy_credentials_given():
                self.record(407)
                self.send_response(407)
                self.send_header("Proxy-Authenticate", 'Basic realm="test proxy"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.path = url.path + ("?" + url.query if url.query else "")
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            if os.path.isdir(path):
                self.record(200, "listing")
                return super().do_GET()
            self.record(404)
            self.send_error(404)
            return
        size = os.path.getsize(path)
        stat = os.stat(path)
        etag = f'"{stat.st_size:x}-{int(stat.st_mtime_ns):x}"'
        if self.headers.get("If-None-Match") == etag:
            self.record(304)
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        start = 0
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes=") and rng.endswith("-"):
            start = int(rng[6:-1])
            if start >= size:
                self.record(416)
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read()
        drop = (self.server.drop_after is not None and start == 0 and path.endswith((".zip", ".xz", ".tgz"))
                and len(data) > self.server.drop_after)
        with lock:
            drop = drop and path not in dropped
            if drop:
                dropped.add(path)
        self.record(206 if start else 200, "dropped" if drop else "")
        self.send_response(206 if start else 200)
        if start:
            self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", email.utils.formatdate(stat.st_mtime, usegmt=True))
        self.end_headers()
        if drop:
            self.wfile.write(data[:self.server.drop_after])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.wfile.write(data)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("root")
    p.add_argument("--port-file", required=True)
    p.add_argument("--log")
    p.add_argument("--drop-after", type=int)
    p.add_argument("--lifetime", type=float, default=900)
    p.add_argument("--proxy-for")
    p.add_argument("--proxy-auth")
    p.add_argument("--tls", nargs=2, metavar=("PEM", "PORT_FILE"))
    a = p.parse_args()
    server = make_server(a)
    if a.tls:
        tls = make_server(a)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(a.tls[0])
        tls.socket = context.wrap_socket(tls.socket, server_side=True)
        threading.Thread(target=tls.serve_forever, daemon=True).start()
        write_port(tls, a.tls[1])
    threading.Timer(a.lifetime, server.shutdown).start()
    write_port(server, a.port_file)
    server.serve_forever()
    os._exit(0)


def make_server(a):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=a.root))
    server.daemon_threads = True
    server.log, server.drop_after, server.proxy_for, server.proxy_auth = a.log, a.drop_after, a.proxy_for, a.proxy_auth
    return server


def write_port(server, port_file):
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, port_file)


if __name__ == "__main__":
    main()
