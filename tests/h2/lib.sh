# tests/h2/lib.sh - sourced by tests/h2/*.sh and bench/h2.sh: a test certificate, free ports,
# waiting for a port, and the two reference HTTP/2 servers (h2o, nginx) configured the same
# way as tachy-hello is driven:
#
#   GET  /      200 text/plain "Hello, World!" (13 bytes)
#   POST /echo  the request body back (h2o only: an mruby handler; stock nginx cannot echo)
#   GET  /big   256 KiB of bytes (for the flow-control checks of a server without an echo)
#
# h2o 2.2 (Debian, num-threads 1): h2c by prior knowledge and by Upgrade on its plain port,
# h2 by ALPN on its TLS port, HTTP/1.1 on both. nginx 1.22 (1 worker): `listen ... http2` on
# a plain port speaks ONLY h2c with prior knowledge there (no HTTP/1.1, no Upgrade: its
# ngx_http_v2 has no h2c upgrade), so it gets the client options --no-upgrade --no-h1.
# nginx allows 256 concurrent streams per connection (default 128): the JDK's HttpClient
# fails requests beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS ("too many concurrent
# streams") instead of queueing them, and smoke.sh sends 200 at once. h2o 2.2 always
# advertises 100 (its http2-max-concurrent-requests-per-connection does not change the
# SETTINGS), so it fails that JDK check on both ports: run.sh --ref h2o expects 2 failures.

h2_cert() { # h2_cert DIR: DIR/cert.pem and DIR/key.pem, self-signed for localhost/127.0.0.1
  [ -s "$1/cert.pem" ] && [ -s "$1/key.pem" ] && return 0
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 7 \
    -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
    -keyout "$1/key.pem" -out "$1/cert.pem" 2>/dev/null
}

h2_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

h2_wait_port() { # h2_wait_port PORT SECONDS [PID]: until 127.0.0.1:PORT accepts; 1 if not
  local end=$((SECONDS + ${2:-10}))
  while [ $SECONDS -lt $end ]; do
    if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then return 1; fi
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# h2_ref_conf NAME PLAIN TLS CERT KEY DIR: writes NAME's configuration into DIR and prints the
# command that runs it in the foreground (one process serving both ports).
h2_ref_conf() {
  local name=$1 plain=$2 tls=$3 cert=$4 key=$5 dir=$6
  mkdir -p "$dir"
  printf 'Hello, World!' >"$dir/hello.txt"
  [ -s "$dir/big.bin" ] || head -c 262144 /dev/urandom >"$dir/big.bin"
  case "$name" in
    h2o)
      cat >"$dir/h2o.conf" <<EOF
num-threads: 1
user: $(id -un)
error-log: $dir/h2o-error.log
pid-file: $dir/h2o.pid
http2-idle-timeout: 60
listen:
  host: 127.0.0.1
  port: $plain
listen:
  host: 127.0.0.1
  port: $tls
  ssl:
    certificate-file: $cert
    key-file: $key
    minimum-version: TLSv1.2
    ocsp-update-interval: 0
hosts:
  default:
    paths:
      /echo:
        mruby.handler: |
          Proc.new do |env|
            [200, {"content-type" => (env["CONTENT_TYPE"] || "application/octet-stream")}, [env["rack.input"] ? env["rack.input"].read : ""]]
          end
      /big:
        file.file: $dir/big.bin
      /:
        file.file: $dir/hello.txt
        file.mime.settypes:
          text/plain: .txt
EOF
      echo "h2o -m worker -c $dir/h2o.conf"
      ;;
    nginx)
      mkdir -p "$dir/tmp"
      cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
user $(id -un);
daemon off;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  keepalive_requests 100000000;
  http2_max_concurrent_streams 256;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  server {
    listen 127.0.0.1:$plain http2;
    listen 127.0.0.1:$tls ssl http2;
    ssl_certificate $cert;
    ssl_certificate_key $key;
    location = / { default_type text/plain; return 200 "Hello, World!"; }
    location = /big { alias $dir/big.bin; default_type application/octet-stream; }
  }
}
EOF
      echo "nginx -e $dir/nginx-error.log -p $dir -c $dir/nginx.conf"
      ;;
    *) echo "h2_ref_conf: unknown server $name" >&2; return 1 ;;
  esac
}

# The client.py options that describe each reference server
h2_ref_client_opts() {
  case "$1" in
    h2o) echo "--echo /echo" ;;
    nginx) echo "--echo= --big /big --no-upgrade --no-h1" ;;
  esac
}
