/*
 * recon_ref.h: the reference reconstruction of the tests (recon_ref.c),
 * which the core's PbReconstructCpu and the GPU's PbGpuReconstruct must
 * equal pixel for pixel.  Not shipped: the tests and GPU tests link it.
 */
#ifndef PB_RECON_REF_H
#define PB_RECON_REF_H

#include "../src/core/raster/pb_raster.h"

/*
 * Sequential reference reconstruction of marker under (eroding: above)
 * mask in place: Vincent's fast hybrid algorithm on the whole image, one
 * thread.  The arguments of PbReconCheck; PB_ERR_BADARG when it refuses
 * them, PB_ERR_NOMEM when scratch memory runs out.
 */
extern PbStatus PbReconstructSeq(PbImage *marker, const PbImage *mask,
								 int connectivity, PbReconOp op);

/*
 * A w x h image of type, its pixels drawn from rng (rand_r's state) in
 * 0..top; its data calloc'd (the caller frees it).  Aborts when out of
 * memory.
 */
extern PbImage ReconRandomImage(int w, int h, PbPixType type, unsigned *rng, int top);

#endif							/* PB_RECON_REF_H */
