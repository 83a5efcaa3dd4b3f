# shellcheck shell=bash
# Sourced by scripts/citus-cluster.sh (the tests' cluster) and
# bench/run-citus-bench: the primitives of a local Citus cluster of
# PostgreSQL instances on this machine.  Node 0 is the coordinator, nodes
# 1..n the workers; node I has its data directory CN_DIR/nodeI, its log
# CN_DIR/nodeI.log and a free port, optionally a CPU list (taskset), all
# under one temporary directory CN_DIR that is also their socket directory.
# The binaries are CN_BIN's, by default pg_config's (first on PATH), so the
# same code runs with Debian's /usr/lib/postgresql/15/bin and with the GPU
# machine's /opt/pg/... (LD_LIBRARY_PATH is passed on to the servers).  As
# root the instances run as user postgres (initdb refuses root).
#
#   cn_init HOST               the directory; HOST is the address the nodes
#                              listen on and know each other by: a TCP
#                              address, or socket (the socket directory)
#   cn_create I PRELOAD [LINE...]  initdb node I (then start it before
#                              creating the next: its port is drawn free)
#   cn_start I [CPUS]  cn_stop I [MODE]  cn_restart I [CPUS]
#   cn_psql I [ARGS...]  cn_port I  cn_data I  cn_log I
#   cn_register N [DB]         node 0 the coordinator, 1..N its workers
#   cn_destroy [MODE]          stop every node, remove CN_DIR

CN_BIN=${CN_BIN:-}
CN_DIR=
CN_HOST=
CN_PORTS=()

# The prefix that runs a command as the instances' owner, with this
# shell's library path (set by cn_init).
CN_OWNER=()

# Run a command as the instances' owner.
cn_as_owner() {
  "${CN_OWNER[@]}" "$@"
}

# Make the cluster's directory, find the binaries, pick the instances'
# owner and the address the nodes use (HOST; socket: the socket directory).
cn_init() {
  CN_BIN=${CN_BIN:-$(pg_config --bindir)}
  CN_DIR=$(mktemp -d /tmp/pb-citus.XXXXXX)
  chmod 755 "$CN_DIR"
  CN_OWNER=()
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$CN_DIR"
    CN_OWNER=(runuser -u postgres -- env "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}")
  fi
  CN_HOST=$1
  [ "$CN_HOST" = socket ] && CN_HOST=$CN_DIR
  CN_PORTS=()
}

# The port of node I.
cn_port() {
  echo "${CN_PORTS[$1]}"
}

# The data directory of node I.
cn_data() {
  echo "$CN_DIR/node$1"
}

# The server log of node I.
cn_log() {
  echo "$CN_DIR/node$1.log"
}

# Print a TCP port on 127.0.0.1 that nothing listens on, away from 5432 and
# from pb-cluster.sh's 20000-39999 (which it takes without looking).
cn_free_port() {
  local port
  while :; do
    port=$(( 40000 + RANDOM % 20000 ))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
    echo "$port"
    return 0
  done
}

# Create node I with the libraries PRELOAD (shared_preload_libraries, e.g.
# citus or citus,pixelbox) on a free port; extra postgresql.conf lines come
# after PRELOAD.  The nodes listen on CN_HOST (on their socket only when
# that is the socket directory) and fsync is off (their data is thrown away).
cn_create() {
  local i=$1 preload=$2 port line listen=$CN_HOST; shift 2
  [ "$CN_HOST" = "$CN_DIR" ] && listen=
  port=$(cn_free_port)
  CN_PORTS[i]=$port
  cn_as_owner "$CN_BIN/initdb" -D "$(cn_data "$i")" -A trust -U postgres >"$CN_DIR/initdb$i.log"
  {
    echo "listen_addresses = '$listen'"
    echo "unix_socket_directories = '$CN_DIR'"
    echo "port = $port"
    echo "shared_preload_libraries = '$preload'"
    echo "fsync = off"
    for line in "$@"; do echo "$line"; done
  } | cn_as_owner tee -a "$(cn_data "$i")/postgresql.conf" >/dev/null
}

# Start node I, with its server processes on CPU list CPUS when given
# (taskset's syntax, e.g. 0-3; every backend and parallel worker it forks
# inherits it).
cn_start() {
  local pin=()
  [ -n "${2:-}" ] && pin=(taskset -c "$2")
  "${pin[@]}" "${CN_OWNER[@]}" "$CN_BIN/pg_ctl" -D "$(cn_data "$1")" -l "$(cn_log "$1")" -w start >/dev/null
}

# Stop node I; MODE is pg_ctl's (default fast: sessions are ended).
cn_stop() {
  cn_as_owner "$CN_BIN/pg_ctl" -D "$(cn_data "$1")" -m "${2:-fast}" -w stop >/dev/null
}

# Restart node I (on CPU list CPUS when given), so that settings written
# with ALTER SYSTEM and the new CPU list both hold from its next session on.
cn_restart() {
  cn_stop "$1"
  cn_start "$1" "${2:-}"
}

# psql on node I as postgres, database postgres unless ARGS name another
# (-d), quiet, stopping at the first error.
cn_psql() {
  local i=$1; shift
  "$CN_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$CN_DIR" -p "$(cn_port "$i")" -U postgres -d postgres "$@"
}

# Register node 0 as the coordinator and nodes 1..N as its workers, by
# CN_HOST, in database DB (default postgres), where citus was created.
cn_register() {
  local n=$1 db=${2:-postgres} i
  cn_psql 0 -d "$db" -c "SELECT citus_set_coordinator_host('$CN_HOST', $(cn_port 0))" >/dev/null
  for i in $(seq 1 "$n"); do
    cn_psql 0 -d "$db" -c "SELECT citus_add_node('$CN_HOST', $(cn_port "$i"))" >/dev/null
  done
}

# Stop every node that runs (MODE as cn_stop's) and remove the cluster's
# directory.
cn_destroy() {
  local d
  [ -n "$CN_DIR" ] && [ -d "$CN_DIR" ] || return 0
  for d in "$CN_DIR"/node*/; do
    [ -f "$d/postmaster.pid" ] && cn_as_owner "$CN_BIN/pg_ctl" -D "$d" -m "${1:-fast}" -w stop >/dev/null 2>&1
  done
  rm -rf "$CN_DIR"
}
