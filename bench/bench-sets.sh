# shellcheck shell=bash
# Sourced by the polygon benchmarks: the data sets they run on, chosen with
# --data pbgen|real|both (both: pbgen, then real, in the same run).
#   pbgen  bench/pbgen's default synthetic slide: uniform nuclei of ~150 px
#   real   bench/realgen's slide tiled with two segmentations of a real IHC
#          image: heavy-tailed vertex counts and boxes, merged blobs
# and the "data:" line that says what each result was measured on
# (bench/pbstats: vertex and box distributions, holes, MBR pairs).
# Run from the repository root; realgen runs with ${PB_PYTHON:-/usr/bin/python3}.

# The sets --data names, in order; fails on any other name.
pb_sets() {
  case "$1" in
    pbgen|real) echo "$1" ;;
    both) echo "pbgen real" ;;
    *) echo "--data must be pbgen, real or both, not '$1'" >&2; return 2 ;;
  esac
}

# Build the generator and the describer.
pb_sets_build() {
  make -s bench/pbgen bench/pbstats
}

# The generator command line of set NAME with generator arguments ARGS.
pb_set_command() {
  local name=$1; shift
  case "$name" in
    pbgen) echo "bench/pbgen $*" ;;
    real) echo "bench/realgen $*" ;;
  esac
}

# Write set NAME to files A and B: pb_set_make NAME A B ARGS (--polygons N,
# --seed S, --scale K, ...: the options pbgen and realgen share).
pb_set_make() {
  local name=$1 a=$2 b=$3; shift 3
  case "$name" in
    pbgen) ./bench/pbgen "$@" --out-a "$a" --out-b "$b" ;;
    real) "${PB_PYTHON:-/usr/bin/python3}" bench/realgen "$@" --out-a "$a" --out-b "$b" ;;
  esac
}

# Print the data: line of set NAME made with ARGS into files A and B:
# pb_set_describe NAME A B ARGS.
pb_set_describe() {
  local name=$1 a=$2 b=$3; shift 3
  echo "data: $(pb_set_command "$name" "$@"): $(./bench/pbstats "$a" "$b")"
}

# Load files A and B into fresh tables TA and TB (id, geom) with GiST
# indexes, analyzed, and when WORKERS is given the planner allowed that
# many parallel workers on them: pb_set_load A B TA TB [WORKERS] (on the
# server the PG* variables name).
pb_set_load() {
  local workers=
  [ -n "${5:-}" ] && workers="ALTER TABLE $3 SET (parallel_workers = $5);
ALTER TABLE $4 SET (parallel_workers = $5);"
  command psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS $3, $4;
CREATE TABLE $3 (id bigint, geom geometry);
CREATE TABLE $4 (id bigint, geom geometry);
\copy $3 FROM '$1'
\copy $4 FROM '$2'
CREATE INDEX ON $3 USING gist (geom);
CREATE INDEX ON $4 USING gist (geom);
VACUUM ANALYZE $3;
VACUUM ANALYZE $4;
$workers
SQL
}
