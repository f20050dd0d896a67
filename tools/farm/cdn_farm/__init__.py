"""cdn_farm: cudadenoise-farm, segment-parallel denoising of long videos and many
files on Dask distributed (docs/FARM.md). The pixels are cudadenoise-transcode's:
each piece is one `cudadenoise-transcode --range A:B --manifest M` run on a worker.
"""
