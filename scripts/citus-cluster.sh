# shellcheck shell=bash
# Sourced by the scripts: start and stop a throwaway Citus cluster (a
# coordinator and two workers of PostgreSQL 15 on this machine, TCP on
# 127.0.0.1, free ports) in one temporary directory, with citus, postgis and
# pixelbox created in database pb_citus on every node and the workers
# registered.  Builds Citus with ../shared/tools/build-citus first when it is
# not installed.  After pb_citus_start:
#   PB_CITUS_DIR                 the directory (data dirs, logs, sockets)
#   PB_CITUS_PORT                the coordinator's port
#   PB_CITUS_WORKER_PORTS        the workers' ports, space-separated
#   PB_CITUS_DATA_<node>, PB_CITUS_LOG_<node>   node = coord, worker1, worker2
# and PGHOST/PGPORT/PGUSER/PGDATABASE point at the coordinator's database.

. "$(dirname "${BASH_SOURCE[0]}")/pb-cluster.sh"
PB_CITUS_NODES="coord worker1 worker2"

# Build and install Citus unless this PostgreSQL has it already.
pb_citus_build() {
  local pg_config=$PB_PGBIN/pg_config
  [ -f "$($pg_config --pkglibdir)/citus.so" ] && return 0
  local tool
  tool="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/../shared/tools/build-citus"
  [ -x "$tool" ] || { echo "citus-cluster: citus is not installed and $tool is missing" >&2; return 1; }
  echo "== building Citus ($tool, a few minutes)"
  PG_CONFIG=$pg_config "$tool"
}

# Print a TCP port on 127.0.0.1 that nothing listens on (each node is
# started before the next port is drawn, so the nodes' ports differ).
pb_citus_free_port() {
  local port
  while :; do
    port=$(( 20000 + RANDOM % 20000 ))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
    echo "$port"
    return 0
  done
}

# initdb and start node NAME on PORT with citus and pixelbox preloaded;
# extra postgresql.conf lines come as further arguments.
pb_citus_node_start() {
  local name=$1 port=$2; shift 2
  local data="$PB_CITUS_DIR/$name"
  pb_as_owner "$PB_PGBIN/initdb" -D "$data" -A trust -U postgres >"$PB_CITUS_DIR/$name-initdb.log"
  {
    echo "listen_addresses = '127.0.0.1'"
    echo "unix_socket_directories = '$PB_CITUS_DIR'"
    echo "port = $port"
    echo "fsync = off"
    echo "max_parallel_workers_per_gather = 0"
    echo "shared_preload_libraries = 'citus,pixelbox'"
    for line in "$@"; do echo "$line"; done
  } | pb_as_owner tee -a "$data/postgresql.conf" >/dev/null
  pb_as_owner "$PB_PGBIN/pg_ctl" -D "$data" -l "$PB_CITUS_DIR/$name.log" -w start >/dev/null
  printf -v "PB_CITUS_DATA_$name" '%s' "$data"
  printf -v "PB_CITUS_LOG_$name" '%s' "$PB_CITUS_DIR/$name.log"
  export "PB_CITUS_DATA_$name" "PB_CITUS_LOG_$name"
}

# Create database pb_citus with citus, postgis and pixelbox on the node at PORT.
pb_citus_node_db() {
  "$PB_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PB_CITUS_DIR" -p "$1" -U postgres -d postgres <<'SQL' >/dev/null
CREATE DATABASE pb_citus;
\c pb_citus
SET client_min_messages = warning;
CREATE EXTENSION citus;
CREATE EXTENSION postgis;
CREATE EXTENSION pixelbox;
SQL
}

# Build Citus if needed, start the three nodes (extra postgresql.conf lines
# for every node come as arguments), create the database on each and
# register the workers with the coordinator.
pb_citus_start() {
  pb_citus_build || return 1
  PB_CITUS_DIR=$(mktemp -d /tmp/pixelbox-citus.XXXXXX)
  chmod 755 "$PB_CITUS_DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres "$PB_CITUS_DIR"
  trap 'pb_citus_stop; pb_cluster_stop' EXIT
  local ports=() name port
  for name in $PB_CITUS_NODES; do
    port=$(pb_citus_free_port)
    pb_citus_node_start "$name" "$port" "$@" || return 1
    pb_citus_node_db "$port" || return 1
    ports+=("$port")
  done
  PB_CITUS_PORT=${ports[0]} PB_CITUS_WORKER_PORTS="${ports[1]} ${ports[2]}"
  export PB_CITUS_DIR PB_CITUS_PORT PB_CITUS_WORKER_PORTS
  export PGHOST="$PB_CITUS_DIR" PGPORT="$PB_CITUS_PORT" PGUSER=postgres PGDATABASE=pb_citus
  "$PB_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
SELECT citus_set_coordinator_host('127.0.0.1', $PB_CITUS_PORT);
SELECT citus_add_node('127.0.0.1', ${ports[1]});
SELECT citus_add_node('127.0.0.1', ${ports[2]});
SQL
}

# Stop the three nodes and remove the directory.
pb_citus_stop() {
  if [ -n "${PB_CITUS_DIR:-}" ] && [ -d "$PB_CITUS_DIR" ]; then
    local name
    for name in $PB_CITUS_NODES; do
      [ -d "$PB_CITUS_DIR/$name" ] &&
        pb_as_owner "$PB_PGBIN/pg_ctl" -D "$PB_CITUS_DIR/$name" -m fast -w stop >/dev/null 2>&1
    done
    rm -rf "$PB_CITUS_DIR"
  fi
  return 0
}
