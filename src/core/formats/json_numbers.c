/*
 * json_numbers.c: nested arrays of numbers parsed fast from a record's
 * bytes, or converted from json-c (see json_numbers.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "json_numbers.h"
#include "json_record.h"

/* Exact powers of ten (all are exact doubles up to 1e22). */
static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* Grow a uint32 array to hold one more; return it. */
static uint32_t *
Grow32(uint32_t *a, uint32_t *cap, uint32_t n)
{
	if (n == *cap)
	{
		*cap = *cap ? 2 * *cap : 64;
		a = realloc(a, sizeof(uint32_t) * *cap);
		if (a == NULL)
			PbOutOfMemory();
	}
	return a;
}

/* A new node of the given kind; its number. */
static uint32_t
NewNode(PbNumTree *t, PbNumKind kind)
{
	if (t->nnodes == t->cap_nodes)
	{
		t->cap_nodes = t->cap_nodes ? 2 * t->cap_nodes : 256;
		t->nodes = realloc(t->nodes, sizeof(PbNumNode) * t->cap_nodes);
		if (t->nodes == NULL)
			PbOutOfMemory();
	}
	memset(&t->nodes[t->nnodes], 0, sizeof(PbNumNode));
	t->nodes[t->nnodes].kind = (uint8_t) kind;
	return t->nnodes++;
}

/* Push a child's node number. */
static void
Push(PbNumTree *t, uint32_t k)
{
	t->stack = Grow32(t->stack, &t->cap_stack, t->nstack);
	t->stack[t->nstack++] = k;
}

/* Make the children pushed since base an array node; return it. */
static uint32_t
CloseArray(PbNumTree *t, uint32_t base)
{
	uint32_t	k = NewNode(t, PB_NUM_ARRAY);
	uint32_t	n = t->nstack - base;

	t->nodes[k].first = t->nkids;
	t->nodes[k].count = n;
	while (t->cap_kids - t->nkids < n)
	{
		t->cap_kids = t->cap_kids ? 2 * t->cap_kids : 256;
		t->kids = realloc(t->kids, sizeof(uint32_t) * t->cap_kids);
		if (t->kids == NULL)
			PbOutOfMemory();
	}
	if (n > 0)
		memcpy(t->kids + t->nkids, t->stack + base, sizeof(uint32_t) * n);
	t->nkids += n;
	t->nstack = base;
	return k;
}

/* Empty the tree. */
void
PbNumReset(PbNumTree *t)
{
	t->nnodes = t->nkids = t->nstack = t->nroots = 0;
}

/* Free the tree's arrays. */
void
PbNumFree(PbNumTree *t)
{
	free(t->nodes);
	free(t->kids);
	free(t->stack);
	free(t->roots);
	free(t->cuts);
	memset(t, 0, sizeof(*t));
}

/* Whether c is JSON whitespace. */
static inline int
IsSpace(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/*
 * A JSON number at p (strict grammar): its value in *v and the byte after
 * it, or NULL when it is not one the fast path takes (then json-c decides).
 */
static const char *
ParseNumber(const char *p, double *v)
{
	const char *start = p;
	uint64_t	m = 0;
	int			digits = 0,		/* significant digits in m */
				exp10 = 0,
				integer = 1,
				neg = 0;

	if (*p == '-')
	{
		neg = 1;
		p++;
	}
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		for (; *p >= '0' && *p <= '9'; p++)
		{
			if (digits < 19)
				m = m * 10 + (uint64_t) (*p - '0'), digits++;
			else
				exp10++;
		}
	else
		return NULL;
	if (*p >= '0' && *p <= '9')
		return NULL;			/* a leading zero */
	if (*p == '.')
	{
		integer = 0;
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return NULL;
		for (; *p >= '0' && *p <= '9'; p++)
		{
			if (m == 0 && *p == '0')
				exp10--;		/* leading zeros of a fraction */
			else if (digits < 19)
			{
				m = m * 10 + (uint64_t) (*p - '0');
				digits++;
				exp10--;
			}
		}
	}
	if (*p == 'e' || *p == 'E')
	{
		int			e = 0,
					eneg = 0;

		integer = 0;
		p++;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		if (!(*p >= '0' && *p <= '9'))
			return NULL;
		for (; *p >= '0' && *p <= '9'; p++)
			if (e < 100000)
				e = e * 10 + (*p - '0');
		exp10 += eneg ? -e : e;
	}
	if (integer)
	{
		/* json-c keeps integers as int64: more digits are its range errors */
		if (p - start - neg > 18)
			return NULL;
		*v = (double) (int64_t) m * (neg ? -1 : 1);
		if (*v == 0)
			*v = 0.0;			/* "-0" is json-c's integer 0 */
		return p;
	}
	if (m < ((uint64_t) 1 << 53) && exp10 >= -22 && exp10 <= 22)
		*v = exp10 < 0 ? (double) m / pow10_exact[-exp10] : (double) m * pow10_exact[exp10];
	else
	{
		char	   *end;

		*v = strtod(start + neg, &end);
		if (end != p || *v - *v != 0)
			return NULL;		/* out of range: json-c says so */
	}
	if (neg)
		*v = -*v;
	return p;
}

/*
 * The array at *pp ('['), of arrays and numbers only: its node, *depth
 * its nesting, *pp after it; -1 when it holds anything else.
 */
static int64_t
ParseArray(PbNumTree *t, const char **pp, int *depth)
{
	const char *p = *pp + 1;
	uint32_t	base = t->nstack;
	int			deepest = 0;

	while (IsSpace(*p))
		p++;
	if (*p == ']')
		p++;
	else
		for (;;)
		{
			if (*p == '[')
			{
				int			d;
				int64_t		k = ParseArray(t, &p, &d);

				if (k < 0)
					return -1;
				Push(t, (uint32_t) k);
				if (d > deepest)
					deepest = d;
			}
			else
			{
				double		v;
				const char *next = ParseNumber(p, &v);
				uint32_t	k;

				if (next == NULL)
					return -1;
				p = next;
				k = NewNode(t, PB_NUM_NUMBER);
				t->nodes[k].value = v;
				Push(t, k);
			}
			while (IsSpace(*p))
				p++;
			if (*p == ',')
			{
				p++;
				while (IsSpace(*p))
					p++;
				continue;
			}
			if (*p != ']')
				return -1;
			p++;
			break;
		}
	*depth = deepest + 1;
	*pp = p;
	return CloseArray(t, base);
}

/* Note a placeholder ending at at (new bytes), removed bytes in all so far. */
static void
AddCut(PbNumTree *t, size_t at, size_t removed)
{
	if (t->nroots == t->cap_roots)
	{
		t->cap_roots = t->cap_roots ? 2 * t->cap_roots : 16;
		t->roots = realloc(t->roots, sizeof(uint32_t) * t->cap_roots);
		t->cuts = realloc(t->cuts, 2 * sizeof(size_t) * t->cap_roots);
		if (t->roots == NULL || t->cuts == NULL)
			PbOutOfMemory();
	}
	t->cuts[2 * t->nroots] = at;
	t->cuts[2 * t->nroots + 1] = removed;
}

/* Parse and replace the record's numeric arrays (see json_numbers.h). */
int
PbNumSubstitute(PbNumTree *t, const char *data, size_t len, char *out,
				size_t *out_len, size_t *bad_at)
{
	size_t		i = 0,
				w = 0,			/* bytes kept before seg */
				seg = 0,		/* first byte not yet moved */
				removed = 0;

	PbNumReset(t);
	while (i < len)
	{
		char		c = data[i];

		if (c == '"')
		{
			for (i++; i < len && data[i] != '"'; i++)
			{
				if ((unsigned char) data[i] < 0x20)
				{
					*bad_at = i;
					return -1;
				}
				if (data[i] == '\\' && len - i >= 6 && memcmp(data + i + 1, "u0001", 5) == 0)
				{
					/* a string that decodes to a placeholder's \x01: no placeholders */
					PbNumReset(t);
					memcpy(out, data, len);
					out[len] = '\0';
					*out_len = len;
					return 0;
				}
				if (data[i] == '\\')
					i++;
			}
			i++;
			continue;
		}
		if (c == '[')
		{
			uint32_t	nodes = t->nnodes,
						kids = t->nkids;
			const char *p = data + i;
			int			depth = 0;
			int64_t		k = ParseArray(t, &p, &depth);
			size_t		alen = (size_t) (p - (data + i));
			char		ph[16];
			int			n = snprintf(ph, sizeof(ph), "\"\x01%u\"", t->nroots);

			if (k >= 0 && depth >= 2 && (size_t) n <= alen)
			{
				memcpy(out + w, data + seg, i - seg);
				w += i - seg;
				memcpy(out + w, ph, (size_t) n);
				w += (size_t) n;
				removed += alen - (size_t) n;
				AddCut(t, w, removed);
				t->roots[t->nroots++] = (uint32_t) k;
				i += alen;
				seg = i;
				continue;
			}
			t->nnodes = nodes;
			t->nkids = kids;
			t->nstack = 0;
			/* a flat array of numbers holds no string: step over it */
			i += k >= 0 ? alen : 1;
			continue;
		}
		i++;
	}
	memcpy(out + w, data + seg, len - seg);
	w += len - seg;
	out[w] = '\0';
	*out_len = w;
	return 0;
}

/* Add the bytes removed before offset at. */
size_t
PbNumFileOffset(const PbNumTree *t, size_t at)
{
	size_t		removed = 0;

	for (uint32_t k = 0; k < t->nroots && t->cuts[2 * k] <= at; k++)
		removed = t->cuts[2 * k + 1];
	return at + removed;
}

/* The node of a JSON value (see json_numbers.h). */
uint32_t
PbNumFromJson(PbNumTree *t, struct json_object *o)
{
	uint32_t	k;

	if (json_object_is_type(o, json_type_string))
	{
		const char *s = json_object_get_string(o);

		if (s[0] == '\x01')
		{
			unsigned long r = strtoul(s + 1, NULL, 10);

			if (r < t->nroots)
				return t->roots[r];
		}
	}
	if (json_object_is_type(o, json_type_array))
	{
		uint32_t	base = t->nstack;
		size_t		n = json_object_array_length(o);

		for (size_t i = 0; i < n; i++)
			Push(t, PbNumFromJson(t, json_object_array_get_idx(o, i)));
		return CloseArray(t, base);
	}
	if (json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double))
	{
		double		v = 0;
		const char *bad = PbJsonCoordinate(o, &v);

		k = NewNode(t, bad ? PB_NUM_OTHER : PB_NUM_NUMBER);
		t->nodes[k].value = v;
		t->nodes[k].bad = bad;
		return k;
	}
	k = NewNode(t, PB_NUM_OTHER);
	t->nodes[k].bad = PbJsonTypeName(o);
	return k;
}

/* Name a node's kind for messages. */
const char *
PbNumWhat(const PbNumTree *t, uint32_t node)
{
	const PbNumNode *n = &t->nodes[node];

	return n->kind == PB_NUM_NUMBER ? "a number" : n->kind == PB_NUM_ARRAY ? "an array" : n->bad;
}
