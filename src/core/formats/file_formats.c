/*
 * file_formats.c: a file's reader chosen by its name (see file_formats.h).
 */
#include <string.h>
#include <strings.h>

#include "file_formats.h"
#include "label_batch.h"
#include "label_file.h"

/* Whether path ends in suffix, in any case. */
static int
EndsWith(const char *path, const char *suffix)
{
	size_t		n = strlen(path),
				k = strlen(suffix);

	return n >= k && strcasecmp(path + n - k, suffix) == 0;
}

/* Pick the parser by the file's extension. */
PbFileParseFn
PbFileParserFor(const char *path)
{
	if (EndsWith(path, ".geojson"))
		return PbReadGeoJsonFile;
	if (EndsWith(path, ".json"))
		return PbReadJsonFile;
	if (PbLabelFileName(path))
		return PbLabelFileParse;
	return NULL;
}
