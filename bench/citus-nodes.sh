# shellcheck shell=bash
# Sourced by bench/run-citus-bench: a Citus cluster of PostgreSQL 15
# instances on this machine (node 0 the coordinator, nodes 1..n the
# workers), each with its own data directory, port and CPU list (taskset),
# all under one temporary directory whose path is also their socket
# directory.  The binaries are pg_config's (first on PATH), so the same
# code runs with Debian's /usr/lib/postgresql/15/bin and with the GPU
# machine's /opt/pg/... (LD_LIBRARY_PATH is passed on to the servers).
# As root the instances run as user postgres (initdb refuses root).

CN_BIN=$(pg_config --bindir)
CN_DIR=
CN_PORT0=

# The prefix that runs a command as the instances' owner, with this
# shell's library path (set by cn_init).
CN_OWNER=()

# Run a command as the instances' owner.
cn_as_owner() {
  "${CN_OWNER[@]}" "$@"
}

# Make the cluster's directory and pick its ports (CN_PORT0 + node number,
# away from 5432 and from pb-cluster.sh's 20000-39999).
cn_init() {
  CN_DIR=$(mktemp -d /tmp/pb-citus.XXXXXX)
  chmod 755 "$CN_DIR"
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$CN_DIR"
    CN_OWNER=(runuser -u postgres -- env "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}")
  fi
  CN_PORT0=$(( 40000 + (RANDOM % 2000) * 10 ))
}

# The port of node I.
cn_port() {
  echo $(( CN_PORT0 + $1 ))
}

# Create node I; extra postgresql.conf lines come after I.  Citus is
# preloaded, the nodes reach each other over the socket directory, and
# durability is off (a benchmark's data is thrown away).
cn_create() {
  local i=$1; shift
  cn_as_owner "$CN_BIN/initdb" -D "$CN_DIR/node$i" -A trust -U postgres >"$CN_DIR/initdb$i.log"
  {
    echo "listen_addresses = ''"
    echo "unix_socket_directories = '$CN_DIR'"
    echo "port = $(cn_port "$i")"
    echo "shared_preload_libraries = 'citus'"
    echo "citus.node_conninfo = 'sslmode=disable'"
    echo "fsync = off"
    echo "synchronous_commit = off"
    echo "full_page_writes = off"
    for line in "$@"; do echo "$line"; done
  } | cn_as_owner tee -a "$CN_DIR/node$i/postgresql.conf" >/dev/null
}

# Start node I with its server processes on CPU list CPUS (taskset's
# syntax, e.g. 0-3); every backend and parallel worker it forks inherits it.
cn_start() {
  taskset -c "$2" "${CN_OWNER[@]}" "$CN_BIN/pg_ctl" -D "$CN_DIR/node$1" -l "$CN_DIR/node$1.log" -w start >/dev/null
}

# Stop node I (fast: sessions are ended).
cn_stop() {
  cn_as_owner "$CN_BIN/pg_ctl" -D "$CN_DIR/node$1" -m fast -w stop >/dev/null
}

# Restart node I on CPU list CPUS, so that settings written with ALTER
# SYSTEM and the new CPU list both hold from its next session on.
cn_restart() {
  cn_stop "$1"
  cn_start "$1" "$2"
}

# psql on node I, quiet, stopping at the first error.
cn_psql() {
  local i=$1; shift
  command psql -X -q -v ON_ERROR_STOP=1 -h "$CN_DIR" -p "$(cn_port "$i")" -U postgres -d postgres "$@"
}

# Stop every node that runs and remove the cluster's directory.
cn_destroy() {
  local d
  [ -n "$CN_DIR" ] && [ -d "$CN_DIR" ] || return 0
  for d in "$CN_DIR"/node*/; do
    [ -f "$d/postmaster.pid" ] && cn_as_owner "$CN_BIN/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1
  done
  rm -rf "$CN_DIR"
}
