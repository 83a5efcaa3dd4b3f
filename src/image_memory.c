/*
 * image_memory.c: where the images of the raster and coverage calls live
 * (and the CPU watershed's image-sized scratch, through PbImageScratch).
 * Within pixelbox.host_memory they are palloc'd in the current memory
 * context, any size.  Past it (the backend's memory contexts counted all
 * together), a new image is a temporary file (PostgreSQL's, in
 * temp_tablespaces) mapped into memory: the operating system keeps the
 * pages in use resident and writes the rest to the file, so a slide
 * larger than the server's memory completes, more slowly, and the
 * backend's own memory stays within the setting.  The file is unlinked
 * as soon as it is mapped; unmapping (PbHugeFree, or the reset of the
 * memory context the image was made in, on error too) gives its disk
 * space back.  Its space is reserved up front, so a full disk is an error
 * here rather than a crash later.
 */
#include "postgres.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>

#include "commands/tablespace.h"
#include "storage/fd.h"
#include "utils/memutils.h"

#include "pixelbox.h"
#include "raster_glue.h"

/* A mapped image, owned by the memory context it was made in. */
typedef struct MappedImage
{
	MemoryContextCallback cb;
	void	   *addr;			/* NULL once unmapped */
	size_t		size;
	struct MappedImage *next;	/* the backend's mapped images */
} MappedImage;

static MappedImage *mapped_images;

#define HUGE_PAGE ((size_t) 2 << 20)	/* a transparent huge page of x86-64 */

/*
 * Ask for transparent huge pages over the 2 MB-aligned interior of an
 * allocation of 32 MB or more, so that its first touch faults once per
 * 2 MB rather than once per 4 KB (a 32768² watershed touches about 20 GB
 * of new memory).  Advisory: where the kernel has them off, nothing
 * changes.
 */
void
PbAdviseHugePages(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
	uintptr_t	lo = ((uintptr_t) p + HUGE_PAGE - 1) & ~(uintptr_t) (HUGE_PAGE - 1);
	uintptr_t	hi = ((uintptr_t) p + size) & ~(uintptr_t) (HUGE_PAGE - 1);

	if (size >= 16 * HUGE_PAGE && hi > lo)
		(void) madvise((void *) lo, hi - lo, MADV_HUGEPAGE);
#endif
}

/* Unmap image m (when still mapped) and forget it. */
static void
Unmap(void *arg)
{
	MappedImage *m = (MappedImage *) arg;

	if (m->addr == NULL)
		return;
	munmap(m->addr, m->size);
	m->addr = NULL;
	for (MappedImage **p = &mapped_images; *p; p = &(*p)->next)
		if (*p == m)
		{
			*p = m->next;
			break;
		}
}

/*
 * A new image of size bytes in a temporary file mapped into memory, unmapped
 * when the current memory context is reset or deleted.
 */
static void *
MapImage(size_t size)
{
	MappedImage *m = MemoryContextAllocZero(CurrentMemoryContext, sizeof(MappedImage));
	File		file;
	int			rc;
	void	   *addr;

	m->cb.func = Unmap;
	m->cb.arg = m;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &m->cb);
	/* temp_tablespaces, which OpenTemporaryFile uses only once prepared */
	PrepareTempTablespaces();
	file = OpenTemporaryFile(false);
	rc = posix_fallocate(FileGetRawDesc(file), 0, (off_t) size);
	if (rc != 0)
	{
		FileClose(file);
		ereport(ERROR,
				(errcode(rc == ENOSPC ? ERRCODE_DISK_FULL : ERRCODE_IO_ERROR),
				 errmsg("could not reserve %zu bytes of temporary file for an image: %s",
						size, strerror(rc)),
				 errdetail("The backend's memory is past pixelbox.host_memory (%d MB).",
						   pb_host_memory_mb),
				 errhint("Free disk space for temporary files, or raise pixelbox.host_memory.")));
	}
	addr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, FileGetRawDesc(file), 0);
	rc = errno;
	/* the mapping keeps the unlinked file until it goes */
	FileClose(file);
	if (addr == MAP_FAILED)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("could not map %zu bytes of temporary file for an image: %s",
						size, strerror(rc))));
	m->addr = addr;
	m->size = size;
	m->next = mapped_images;
	mapped_images = m;
	PbRasterReportTiles("mapped", NULL, 0, 1);
	return addr;
}

/*
 * Memory for an image: any size (above 1 GB too), in the current context
 * (on huge pages where it is large), or mapped from a temporary file past
 * pixelbox.host_memory.  Free it with PbHugeFree, or with the context.
 */
void *
PbHugeAlloc(size_t size)
{
	void	   *p;

	size = size ? size : 1;
	if (pb_host_memory_mb > 0 &&
		MemoryContextMemAllocated(TopMemoryContext, true) + size >
		(size_t) pb_host_memory_mb * 1024 * 1024)
		return MapImage(size);
	p = MemoryContextAllocHuge(CurrentMemoryContext, size);
	PbAdviseHugePages(p, size);
	return p;
}

/* Free an image of PbHugeAlloc. */
void
PbHugeFree(void *p)
{
	for (MappedImage *m = mapped_images; m; m = m->next)
		if (m->addr == p)
		{
			Unmap(m);
			return;
		}
	pfree(p);
}

/* PbAllocator's alloc for the core's image-sized scratch: PbHugeAlloc. */
static void *
ScratchAlloc(void *ctx, size_t size)
{
	(void) ctx;
	return PbHugeAlloc(size);
}

/* PbAllocator's release for the core's image-sized scratch: PbHugeFree. */
static void
ScratchRelease(void *ctx, void *ptr)
{
	(void) ctx;
	PbHugeFree(ptr);
}

/*
 * The allocator of the core's image-sized scratch (the CPU watershed's):
 * in the current context, or mapped from a temporary file past
 * pixelbox.host_memory, like the images themselves.  Raises on failure;
 * only for allocations on the backend's own thread.
 */
const PbAllocator PbImageScratch = {ScratchAlloc, NULL, ScratchRelease, NULL, NULL};
