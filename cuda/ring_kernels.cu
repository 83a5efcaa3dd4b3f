/*
 * ring_kernels.cu: moving the one-pixel ring of a rectangle of a device
 * tile to or from a packed buffer, in the order of window.h
 * (PbRingSegment, the same code the CPU runs): the halo a window's run
 * takes from the caller, and the border it gives back.
 */
#include "raster_gpu_common.cuh"

/* One thread a ring pixel: find its segment, copy its ps bytes. */
__global__ static void
RingMoveKernel(char *tile, int64_t pitch, int64_t ox, int64_t oy, int64_t w, int64_t h,
			   int ps, char *ring, bool pack, int64_t total)
{
	for (int64_t i = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; i < total;
		 i += (int64_t) gridDim.x * blockDim.x)
	{
		int64_t		at = i;

		for (int k = 0; k < 4; k++)
		{
			int64_t		x,
						y,
						n;
			int			down;

			PbRingSegment(w, h, k, &x, &y, &n, &down);
			if (at < n)
			{
				char	   *p = tile + ((oy + y + (down ? at : 0)) * pitch + ox + x +
										(down ? 0 : at)) * ps;
				char	   *r = ring + i * ps;

				for (int b = 0; b < ps; b++)
				{
					if (pack)
						r[b] = p[b];
					else
						p[b] = r[b];
				}
				break;
			}
			at -= n;
		}
	}
}

/* Launch RingMoveKernel (see raster_gpu_common.cuh). */
cudaError_t
RgRingMove(char *tile, int64_t pitch, int64_t ox, int64_t oy, int64_t w, int64_t h, size_t ps,
		   char *ring, bool pack, cudaStream_t s)
{
	int64_t		total = PbRingPixels(w, h);
	int64_t		blocks = (total + 255) / 256;

	if (total == 0)
		return cudaSuccess;
	RingMoveKernel<<<(unsigned) (blocks < 1024 ? blocks : 1024), 256, 0, s>>>(
		tile, pitch, ox, oy, w, h, (int) ps, ring, pack, total);
	return cudaGetLastError();
}
