/* gstcdnallocation.h: buffer pools of the cudadenoise plugin's elements: a
 * CUDA buffer pool on the element's context for memory:CUDAMemory caps (or a
 * video pool for system memory), with video meta, proposed upstream and decided
 * downstream (a downstream pool is kept only when it gives CUDA memory of our
 * context, or system memory for system caps). Called by the base class's
 * propose_allocation and decide_allocation (gstcdnbasetransform.h). */
#pragma once

#include "gstcdnbasetransform.h"

/* What propose_allocation adds after GstBaseTransform's: a pool when upstream has
 * none, and video meta. */
gboolean gst_cdn_propose_allocation (GstCdnBaseTransform * self, GstQuery * decide_query, GstQuery * query);

/* What decide_allocation sets before GstBaseTransform's: the output pool. */
gboolean gst_cdn_decide_allocation (GstCdnBaseTransform * self, GstQuery * query);
