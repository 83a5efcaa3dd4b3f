# Sourced by the scripts: start and stop a throwaway PostgreSQL 15 cluster
# in a temporary directory (as user postgres when run as root, since initdb
# refuses root).  After pb_cluster_start, PGHOST/PGPORT/PGUSER point at it.

PB_PGBIN=/usr/lib/postgresql/15/bin

# Run a command as the cluster's owner.
pb_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# Create and start the cluster; extra postgresql.conf lines come as arguments.
pb_cluster_start() {
  PB_CLUSTER_DIR=$(mktemp -d /tmp/pixelbox-cluster.XXXXXX)
  chmod 755 "$PB_CLUSTER_DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres "$PB_CLUSTER_DIR"
  PGPORT=$(( 20000 + RANDOM % 20000 ))
  pb_as_owner "$PB_PGBIN/initdb" -D "$PB_CLUSTER_DIR/data" -A trust -U postgres >"$PB_CLUSTER_DIR/initdb.log"
  {
    echo "listen_addresses = ''"
    echo "unix_socket_directories = '$PB_CLUSTER_DIR'"
    echo "port = $PGPORT"
    echo "fsync = off"
    echo "max_parallel_workers_per_gather = 0"
    for line in "$@"; do echo "$line"; done
  } | pb_as_owner tee -a "$PB_CLUSTER_DIR/data/postgresql.conf" >/dev/null
  # large allocations on transparent huge pages (README, "Huge pages for the server")
  pb_as_owner env GLIBC_TUNABLES=glibc.malloc.hugetlb=1 \
    "$PB_PGBIN/pg_ctl" -D "$PB_CLUSTER_DIR/data" -l "$PB_CLUSTER_DIR/server.log" -w start >/dev/null
  export PGHOST="$PB_CLUSTER_DIR" PGPORT PGUSER=postgres
  trap pb_cluster_stop EXIT
}

# Stop the cluster and remove its directory.
pb_cluster_stop() {
  if [ -n "${PB_CLUSTER_DIR:-}" ] && [ -d "$PB_CLUSTER_DIR" ]; then
    pb_as_owner "$PB_PGBIN/pg_ctl" -D "$PB_CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$PB_CLUSTER_DIR"
  fi
}
