/*
 * pb_load: load segmentation files into a table from the client side, for
 * users who may not read files on the server (pb_read_polygons and its
 * siblings need pg_read_server_files).
 *
 *   pb_load [-d CONNINFO] -t TABLE [-f FORMAT] [options] FILE...
 *
 * The files are read here with the very readers the server uses (the
 * pure-C core: same formats, same conventions, same errors) and streamed
 * into TABLE through COPY FROM STDIN, in one transaction: a bad file loads
 * nothing.  The table is created when missing, with the columns of the
 * matching server function plus the file each row came from.  Polygons
 * travel as hex EWKB, which PostGIS's geometry input reads exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libpq-fe.h"

#include "load_formats.h"

/* Print a message and exit 1. */
static void
Die(const char *fmt,...)
			__attribute__((format(printf, 1, 2), noreturn));

static void
Die(const char *fmt,...)
{
	va_list		ap;

	fputs("pb_load: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Print how to call pb_load and exit with status. */
static void
Usage(int status)
{
	FILE	   *out = status == 0 ? stdout : stderr;

	fprintf(out,
			"Usage: pb_load [-d CONNINFO] -t TABLE [-f FORMAT] [options] FILE...\n"
			"Load segmentation files into TABLE through COPY FROM STDIN (one transaction).\n\n"
			"  -d, --dbname=CONNINFO       database name or connection string (default: libpq's PG* variables)\n"
			"  -t, --table=TABLE           table to load (created when missing; schema.table allowed)\n"
			"  -f, --format=FORMAT         %s (default: auto, by file name and content)\n"
			"      --geometry-member=NAME  GeoJSON: geometry (default) or nucleusGeometry\n"
			"      --contour=MODE          HoVer-Net: pixel_edges (default) or as_written\n"
			"  -h, --help                  this help\n",
			PbLoadFormatNames());
	exit(status);
}

/* The quoted form of a table name, "t" or "s"."t". */
static char *
QuoteTable(PGconn *conn, const char *table)
{
	const char *dot = strchr(table, '.');
	char	   *schema = NULL,
			   *name,
			   *out;
	size_t		len;

	if (dot != NULL)
	{
		char	   *s = strndup(table, dot - table);

		schema = PQescapeIdentifier(conn, s, strlen(s));
		free(s);
		table = dot + 1;
	}
	name = PQescapeIdentifier(conn, table, strlen(table));
	if (name == NULL || (dot != NULL && schema == NULL))
		Die("bad table name: %s", PQerrorMessage(conn));
	len = strlen(name) + (schema ? strlen(schema) + 1 : 0) + 1;
	out = malloc(len);
	if (out == NULL)
		Die("out of memory");
	snprintf(out, len, "%s%s%s", schema ? schema : "", schema ? "." : "", name);
	PQfreemem(name);
	if (schema)
		PQfreemem(schema);
	return out;
}

/* Run a command that returns no rows, or die with the server's error. */
static void
Exec(PGconn *conn, const char *sql)
{
	PGresult   *res = PQexec(conn, sql);

	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		Die("%s", PQerrorMessage(conn));
	PQclear(res);
}

/*
 * Send buffered COPY rows to the server, in pieces libpq's int length takes
 * (COPY's stream need not be cut at rows).
 */
static int
FlushRows(void *arg, const char *data, size_t len)
{
	PGconn	   *conn = (PGconn *) arg;

	while (len > 0)
	{
		size_t		n = len < ((size_t) 1 << 26) ? len : (size_t) 1 << 26;

		if (PQputCopyData(conn, data, (int) n) != 1)
			Die("sending rows failed: %s", PQerrorMessage(conn));
		data += n;
		len -= n;
	}
	return 0;
}

/* End the COPY with msg (the server rolls it back) and die with it. */
static void
AbortCopy(PGconn *conn, const char *msg)
{
	PQputCopyEnd(conn, msg);
	PQclear(PQgetResult(conn));
	Die("%s", msg);
}

/*
 * Create the table if needed and COPY every file into it: with the given
 * format, or (auto) each file's own, which must fill the same columns.
 */
static void
LoadAll(PGconn *conn, const char *table, const PbLoadFormat *given, const PbLoadOptions *opt,
		char **files, int nfiles)
{
	const PbLoadFormat *first = given->load ? given : PbLoadFormatOf(files[0]);
	char	   *qtable = QuoteTable(conn, table);
	char		sql[2048];
	PGresult   *res;
	long		rows;

	if (first == NULL)
		Die("%s: cannot tell the file's format (give -f)", files[0]);
	Exec(conn, "BEGIN");
	snprintf(sql, sizeof(sql), "CREATE TABLE IF NOT EXISTS %s (%s, source text)",
			 qtable, first->columns_ddl);
	Exec(conn, sql);
	snprintf(sql, sizeof(sql), "COPY %s (%s, source) FROM STDIN", qtable, first->columns);
	res = PQexec(conn, sql);
	if (PQresultStatus(res) != PGRES_COPY_IN)
		Die("%s", PQerrorMessage(conn));
	PQclear(res);
	for (int i = 0; i < nfiles; i++)
	{
		const PbLoadFormat *f = given->load ? given : PbLoadFormatOf(files[i]);

		if (f == NULL)
		{
			snprintf(sql, sizeof(sql), "%s: cannot tell the file's format (give -f)", files[i]);
			AbortCopy(conn, sql);
		}
		if (strcmp(f->columns, first->columns) != 0)
		{
			snprintf(sql, sizeof(sql), "%s: a %s file, but the first was %s: one kind per table",
					 files[i], f->name, first->name);
			AbortCopy(conn, sql);
		}
		if (f->load(files[i], opt, FlushRows, conn, sql, sizeof(sql)) != 0)
			AbortCopy(conn, sql);
	}
	if (PQputCopyEnd(conn, NULL) != 1)
		Die("%s", PQerrorMessage(conn));
	res = PQgetResult(conn);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		Die("%s", PQerrorMessage(conn));
	rows = atol(PQcmdTuples(res));
	PQclear(res);
	Exec(conn, "COMMIT");
	printf("pb_load: %ld rows into %s from %d file%s\n", rows, table, nfiles,
		   nfiles == 1 ? "" : "s");
	free(qtable);
}

/* Parse the options, connect, load. */
int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"dbname", required_argument, NULL, 'd'},
		{"table", required_argument, NULL, 't'},
		{"format", required_argument, NULL, 'f'},
		{"geometry-member", required_argument, NULL, 'g'},
		{"contour", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}
	};
	const char *dbname = NULL,
			   *table = NULL,
			   *format = "auto";
	PbLoadOptions opt = PbLoadDefaults();
	const PbLoadFormat *fmt;
	PGconn	   *conn;
	int			c;

	while ((c = getopt_long(argc, argv, "d:t:f:h", longopts, NULL)) != -1)
		switch (c)
		{
			case 'd':
				dbname = optarg;
				break;
			case 't':
				table = optarg;
				break;
			case 'f':
				format = optarg;
				break;
			case 'g':
				opt.geometry_member = optarg;
				break;
			case 'c':
				opt.contour = optarg;
				break;
			case 'h':
				Usage(0);
				break;
			default:
				Usage(2);
		}
	if (table == NULL || optind >= argc)
		Usage(2);
	if (PbLoadCheckOptions(&opt, format, &fmt) != 0)
		Die("%s", opt.error);
	{
		/* a database name or a connection string/URI, as psql's -d takes */
		const char *const keys[] = {"dbname", "fallback_application_name", NULL};
		const char *const values[] = {dbname, "pb_load", NULL};

		conn = PQconnectdbParams(keys, values, 1);
	}
	if (PQstatus(conn) != CONNECTION_OK)
		Die("%s", PQerrorMessage(conn));
	/* the readers write UTF-8 (JSON's encoding), as the server functions read it */
	if (PQsetClientEncoding(conn, "UTF8") != 0)
		Die("%s", PQerrorMessage(conn));
	Exec(conn, "SET client_min_messages = warning");
	LoadAll(conn, table, fmt, &opt, argv + optind, argc - optind);
	PQfinish(conn);
	return 0;
}
