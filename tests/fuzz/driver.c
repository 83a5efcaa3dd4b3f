/*
 * driver.c: a main() for the fuzz harnesses where libFuzzer is not at
 * hand (gcc, no clang): it replays files (corpus seeds, kept crashes) and
 * then runs a deterministic mutation loop, each input in a buffer of its
 * exact size so the sanitizers see a read past its end.
 *
 *   driver [-runs=N] [-seed=S] [-max_len=L] [-artifact_prefix=P] PATH...
 *
 * PATHs are files or directories of files (replayed in name order, then
 * the mutation pool).  The loop runs N mutants, each 1 to 8 random edits
 * (bit flips, interesting bytes and numbers, inserted, erased and copied
 * ranges, splices with another input) of a pool input; the same S and
 * pool give the same mutants.  When an input crashes or breaks a check,
 * it is written to P + "crash-<run>" (and the run says how to redo it)
 * before the process dies.  Prints one line: what was run.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#include "fuzz.h"

/* One input: bytes and their count. */
typedef struct Input
{
	uint8_t    *data;
	size_t		size;
} Input;

/* The pool of replayed inputs the mutants start from. */
static Input *pool;
static size_t npool,
			cap_pool;

/* The input being run, for the crash writer. */
static const uint8_t *current;
static size_t current_size;
static const char *current_what = "";
static const char *artifact_prefix = "";
static long long current_run = -1;
static uint64_t current_seed;

/* Append an input to the pool (the driver's own memory, not the harness's). */
static void
PoolAdd(uint8_t *data, size_t size)
{
	if (npool == cap_pool)
	{
		cap_pool = cap_pool ? 2 * cap_pool : 64;
		pool = realloc(pool, cap_pool * sizeof(Input));
		if (pool == NULL)
			abort();
	}
	pool[npool].data = data;
	pool[npool++].size = size;
}

/* Write the input being run to the artifact file, once, as the process dies. */
static void
WriteCrash(void)
{
	static int	written;
	char		path[4096];
	FILE	   *f;

	if (written || current == NULL)
		return;
	written = 1;
	if (current_run >= 0)
		snprintf(path, sizeof(path), "%scrash-%lld", artifact_prefix, current_run);
	else
		snprintf(path, sizeof(path), "%scrash-replay", artifact_prefix);
	f = fopen(path, "wb");
	if (f != NULL)
	{
		fwrite(current, 1, current_size, f);
		fclose(f);
	}
	fprintf(stderr, "driver: %s crashed (%zu bytes); input written to %s\n",
			current_what, current_size, path);
	if (current_run >= 0)
		fprintf(stderr, "driver: the same paths with -runs=%lld -seed=%llu run it again\n",
				current_run + 1, (unsigned long long) current_seed);
}

/* Signal handler: save the input, then die of the signal as before. */
static void
OnSignal(int sig)
{
	WriteCrash();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Run the harness on a copy of the input of its exact size. */
static void
RunOne(const uint8_t *data, size_t size, const char *what, long long run)
{
	uint8_t    *copy = malloc(size ? size : 1);

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	current = copy;
	current_size = size;
	current_what = what;
	current_run = run;
	LLVMFuzzerTestOneInput(copy, size);
	current = NULL;
	free(copy);
}

/* Read a whole file; NULL when it cannot be read. */
static uint8_t *
ReadFile(const char *path, size_t *size)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *data = NULL;
	size_t		cap = 0,
				n = 0,
				got;

	if (f == NULL)
		return NULL;
	do
	{
		if (n == cap)
		{
			cap = cap ? 2 * cap : 4096;
			data = realloc(data, cap);
			if (data == NULL)
				abort();
		}
		got = fread(data + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*size = n;
	return data;
}

/* qsort comparator: C strings. */
static int
CmpStr(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Replay one file and add it to the pool; return how many were replayed. */
static long
ReplayFile(const char *path)
{
	size_t		size;
	uint8_t    *data = ReadFile(path, &size);

	if (data == NULL)
	{
		fprintf(stderr, "driver: cannot read %s\n", path);
		exit(2);
	}
	RunOne(data, size, path, -1);
	PoolAdd(data, size);
	return 1;
}

/* Replay a file, or every file of a directory in name order. */
static long
ReplayPath(const char *path)
{
	DIR		   *dir = opendir(path);
	struct dirent *e;
	char	  **names = NULL;
	size_t		n = 0,
				cap = 0;
	long		count = 0;

	if (dir == NULL)
		return ReplayFile(path);
	while ((e = readdir(dir)) != NULL)
	{
		if (e->d_name[0] == '.')
			continue;
		if (n == cap)
		{
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(char *));
			if (names == NULL)
				abort();
		}
		names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
		sprintf(names[n++], "%s/%s", path, e->d_name);
	}
	closedir(dir);
	if (n > 0)
		qsort(names, n, sizeof(char *), CmpStr);
	for (size_t i = 0; i < n; i++)
	{
		count += ReplayFile(names[i]);
		free(names[i]);
	}
	free(names);
	return count;
}

/* splitmix64: the driver's deterministic random numbers. */
static uint64_t
Rand(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static size_t
Below(uint64_t *state, size_t n)
{
	return (size_t) (Rand(state) % n);
}

/* Bit patterns decoders trip on: counts, sizes, flags, special doubles. */
static const uint64_t interesting[] = {
	0, 1, 2, 3, 4, 5, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff,
	0x7fffffff, 0x80000000, 0xffffffff, 0x40000000, 0x3fffffff,
	0x7ff0000000000000ULL,		/* +inf */
	0x7ff8000000000000ULL,		/* NaN */
	0xfff0000000000000ULL,		/* -inf */
	0x8000000000000000ULL,		/* -0.0 */
	0x4120000000000000ULL,		/* 524288.0 */
	0x41d0000000000000ULL,		/* 2^30 */
	0x41d0000000400000ULL,		/* 2^30 + 1 */
	0x3fe0000000000000ULL,		/* 0.5 */
	0x7fefffffffffffffULL,		/* DBL_MAX */
	0x0000000000000001ULL,		/* the least subnormal */
};

/* Apply one random edit to buf (size *n, capacity cap). */
static void
Mutate(uint64_t *st, uint8_t *buf, size_t *n, size_t cap)
{
	size_t		size = *n;

	switch (Below(st, 8))
	{
		case 0:					/* flip a bit */
			if (size)
				buf[Below(st, size)] ^= (uint8_t) (1u << Below(st, 8));
			break;
		case 1:					/* a random byte */
			if (size)
				buf[Below(st, size)] = (uint8_t) Rand(st);
			break;
		case 2:					/* an interesting number, 1, 2, 4 or 8 bytes, either order */
			{
				size_t		w = (size_t) 1 << Below(st, 4);
				uint64_t	v = interesting[Below(st, sizeof(interesting) / sizeof(interesting[0]))];
				int			big = (int) Below(st, 2);

				if (size < w)
					break;
				{
					size_t		at = Below(st, size - w + 1);

					for (size_t i = 0; i < w; i++)
						buf[at + i] = (uint8_t) (v >> (8 * (big ? w - 1 - i : i)));
				}
				break;
			}
		case 3:					/* insert random bytes */
			{
				size_t		k = 1 + Below(st, 16),
							at = Below(st, size + 1);

				if (size + k > cap)
					break;
				memmove(buf + at + k, buf + at, size - at);
				for (size_t i = 0; i < k; i++)
					buf[at + i] = (uint8_t) Rand(st);
				*n = size + k;
				break;
			}
		case 4:					/* erase a range */
			if (size)
			{
				size_t		at = Below(st, size),
							k = 1 + Below(st, size - at < 32 ? size - at : 32);

				memmove(buf + at, buf + at + k, size - at - k);
				*n = size - k;
			}
			break;
		case 5:					/* copy a range over another place */
			if (size > 1)
			{
				size_t		from = Below(st, size),
							to = Below(st, size),
							k = 1 + Below(st, size - (from > to ? from : to));

				memmove(buf + to, buf + from, k);
			}
			break;
		case 6:					/* splice: a range of another pool input */
			{
				const Input *o = &pool[Below(st, npool)];
				size_t		from,
							k,
							at;

				if (o->size == 0)
					break;
				from = Below(st, o->size);
				k = 1 + Below(st, o->size - from);
				at = Below(st, size + 1);
				if (at + k > cap)
					k = cap - at;
				memcpy(buf + at, o->data + from, k);
				if (at + k > size)
					*n = at + k;
				break;
			}
		default:				/* truncate */
			if (size)
				*n = Below(st, size);
			break;
	}
}

/* Parse -name=value into *value when arg is that option. */
static int
Option(const char *arg, const char *name, const char **value)
{
	size_t		len = strlen(name);

	if (strncmp(arg, name, len) != 0 || arg[len] != '=')
		return 0;
	*value = arg + len + 1;
	return 1;
}

/* Replay the paths, then run the mutants; see the top of the file. */
int
main(int argc, char **argv)
{
	long long	runs = 0;
	uint64_t	seed = 1,
				state;
	size_t		max_len = 4096;
	long		replayed = 0;
	const char *v;
	uint8_t    *buf;
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

#if defined(__SANITIZE_ADDRESS__)
	__sanitizer_set_death_callback(WriteCrash);
#endif
	signal(SIGABRT, OnSignal);
	signal(SIGSEGV, OnSignal);
	signal(SIGBUS, OnSignal);
	signal(SIGFPE, OnSignal);
	for (int i = 1; i < argc; i++)
	{
		if (Option(argv[i], "-runs", &v))
			runs = atoll(v);
		else if (Option(argv[i], "-seed", &v))
			seed = strtoull(v, NULL, 10);
		else if (Option(argv[i], "-max_len", &v))
			max_len = (size_t) atoll(v);
		else if (Option(argv[i], "-artifact_prefix", &v))
			artifact_prefix = v;
		else if (argv[i][0] == '-')
		{
			fprintf(stderr, "driver: unknown option %s\n", argv[i]);
			return 2;
		}
		else
			replayed += ReplayPath(argv[i]);
	}
	if (npool == 0)
		PoolAdd(NULL, 0);
	for (size_t i = 0; i < npool; i++)
		if (pool[i].size > max_len)
			max_len = pool[i].size;
	buf = malloc(max_len + 1);
	state = seed;
	current_seed = seed;
	for (long long r = 0; r < runs; r++)
	{
		const Input *from = &pool[Below(&state, npool)];
		size_t		n = from->size;
		int			edits = 1 + (int) Below(&state, 8);

		if (n)
			memcpy(buf, from->data, n);
		for (int e = 0; e < edits; e++)
			Mutate(&state, buf, &n, max_len);
		RunOne(buf, n, "a mutant", r);
	}
	printf("%s: %ld inputs replayed, %lld mutants run (seed %llu): no crash\n",
		   name, replayed, runs, (unsigned long long) seed);
	free(buf);
	return 0;
}
