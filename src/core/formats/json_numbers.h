/*
 * json_numbers.h: nested arrays of numbers (GeoJSON coordinates, HoVer-Net
 * contours) held as a small tree of doubles, made either by a fast parser
 * straight from the record's bytes or from json-c's objects.
 *
 * json-c makes an object (and, for a decimal, a copy of its text) per
 * number: most of a GeoJSON file's parsing time.  So before a record goes
 * to json-c, PbNumSubstitute parses every array of arrays of plain JSON
 * numbers in its bytes and writes a copy of the record with a placeholder
 * string ("\x01" and the tree's root number) in the array's place; json-c
 * parses the shorter copy, and PbNumFileOffset takes its errors' offsets
 * back to the record's own.  Raw control characters in strings, which JSON forbids, are
 * refused first, and a record with the escape \u0001 in a string gets no
 * placeholders at all (json-c parses it whole), so a placeholder cannot be
 * mistaken for a string of the file.  An array the fast parser does not take (NaN, strings, leading
 * zeros, integers of more than 18 digits, too short to hold its
 * placeholder) is left to json-c and converted by PbNumFromJson: both make
 * the same tree, and the writers read only the tree.
 *
 * Decimals are converted exactly as strtod does (Clinger's fast path when
 * the digits and the exponent allow, strtod otherwise).
 */
#ifndef PB_JSON_NUMBERS_H
#define PB_JSON_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

#include "../base/pb_base.h"

struct json_object;

/* What a node is. */
typedef enum PbNumKind
{
	PB_NUM_NUMBER,				/* a finite number: value */
	PB_NUM_ARRAY,				/* an array: kids[first .. first + count) */
	PB_NUM_OTHER				/* anything else: bad says what */
} PbNumKind;

typedef struct PbNumNode
{
	uint8_t		kind;
	const char *bad;			/* PB_NUM_OTHER: "a string", "NaN", "out of range", ... */
	double		value;
	uint32_t	first,
				count;
} PbNumNode;

/* The nodes of one record's arrays (malloc'd; reused record to record). */
typedef struct PbNumTree
{
	PbNumNode  *nodes;
	uint32_t   *kids,			/* children's node numbers, array by array */
			   *stack,			/* children being collected */
			   *roots;			/* the substituted arrays, by placeholder number */
	size_t	   *cuts;			/* per placeholder: its end in the new bytes, bytes removed up to it */
	uint32_t	nnodes,
				cap_nodes,
				nkids,
				cap_kids,
				nstack,
				cap_stack,
				nroots,
				cap_roots;
} PbNumTree;

/* Empty the tree (keeping its memory). */
extern void PbNumReset(PbNumTree *t);
extern void PbNumFree(PbNumTree *t);

/*
 * Parse the numeric arrays of the record data[0 .. len) (NUL-terminated)
 * into t, writing the record with placeholders in their place to out (len
 * + 1 bytes; *out_len bytes and a NUL).  Returns 0, or -1 with *bad_at at
 * a raw control character in a string.
 */
extern int	PbNumSubstitute(PbNumTree *t, const char *data, size_t len, char *out,
							size_t *out_len, size_t *bad_at);

/* The offset in the record as it was of offset at of the substituted one. */
extern size_t PbNumFileOffset(const PbNumTree *t, size_t at);

/*
 * The tree node of a JSON value: a placeholder's root, or the value
 * converted (arrays of anything, numbers checked with PbJsonCoordinate).
 */
extern uint32_t PbNumFromJson(PbNumTree *t, struct json_object *o);

/* What a node is, for messages: "a number", "an array" or its bad. */
extern const char *PbNumWhat(const PbNumTree *t, uint32_t node);

/* Child i of array node. */
static inline const PbNumNode *
PbNumKid(const PbNumTree *t, const PbNumNode *array, uint32_t i)
{
	return &t->nodes[t->kids[array->first + i]];
}

#endif							/* PB_JSON_NUMBERS_H */
