# shellcheck shell=bash
# Sourced by the scripts: start and stop a throwaway Citus cluster (a
# coordinator and two workers of PostgreSQL 15 on this machine, TCP on
# 127.0.0.1, free ports) in one temporary directory, with citus, postgis and
# pixelbox created in database pb_citus on every node and the workers
# registered.  Builds Citus with ../shared/tools/build-citus first when it is
# not installed.  The nodes are scripts/citus-nodes.sh's 0, 1 and 2.  After
# pb_citus_start:
#   PB_CITUS_DIR                 the directory (data dirs, logs, sockets)
#   PB_CITUS_PORT                the coordinator's port
#   PB_CITUS_WORKER_PORTS        the workers' ports, space-separated
#   PB_CITUS_DATA_<node>, PB_CITUS_LOG_<node>   node = coord, worker1, worker2
# and PGHOST/PGPORT/PGUSER/PGDATABASE point at the coordinator's database.

. "$(dirname "${BASH_SOURCE[0]}")/pb-cluster.sh"
CN_BIN=$PB_PGBIN
. "$(dirname "${BASH_SOURCE[0]}")/citus-nodes.sh"
PB_CITUS_NODES=(coord worker1 worker2)

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

# Create database pb_citus with citus, postgis and pixelbox on node I.
pb_citus_node_db() {
  cn_psql "$1" <<'SQL' >/dev/null
CREATE DATABASE pb_citus;
\c pb_citus
SET client_min_messages = warning;
CREATE EXTENSION citus;
CREATE EXTENSION postgis;
CREATE EXTENSION pixelbox;
SQL
}

# Build Citus if needed, start the three nodes with citus and pixelbox
# preloaded (extra postgresql.conf lines for every node come as arguments),
# create the database on each, export where each node is and register the
# workers with the coordinator.
pb_citus_start() {
  pb_citus_build || return 1
  cn_init 127.0.0.1
  PB_CITUS_DIR=$CN_DIR
  trap 'pb_citus_stop; pb_cluster_stop' EXIT
  local i name
  for i in "${!PB_CITUS_NODES[@]}"; do
    name=${PB_CITUS_NODES[i]}
    cn_create "$i" citus,pixelbox "max_parallel_workers_per_gather = 0" "$@" || return 1
    cn_start "$i" || return 1
    pb_citus_node_db "$i" || return 1
    printf -v "PB_CITUS_DATA_$name" '%s' "$(cn_data "$i")"
    printf -v "PB_CITUS_LOG_$name" '%s' "$(cn_log "$i")"
    export "PB_CITUS_DATA_$name" "PB_CITUS_LOG_$name"
  done
  PB_CITUS_PORT=$(cn_port 0) PB_CITUS_WORKER_PORTS="$(cn_port 1) $(cn_port 2)"
  export PB_CITUS_DIR PB_CITUS_PORT PB_CITUS_WORKER_PORTS
  export PGHOST="$PB_CITUS_DIR" PGPORT="$PB_CITUS_PORT" PGUSER=postgres PGDATABASE=pb_citus
  cn_register 2 pb_citus
}

# Stop the three nodes and remove the directory.
pb_citus_stop() {
  cn_destroy fast
  return 0
}
