/*
 * cuda_copy.h - the pitched-copy parameters as cuda.h lays them out
 * (CUDA_MEMCPY2D, CUDA_MEMCPY3D; 64-bit), for the test programs that do
 * not include cuda.h: the fake driver, which performs such copies, and
 * shim_runtime, which asks for them.
 */
#ifndef SURFER_TESTS_CUDA_COPY_H
#define SURFER_TESTS_CUDA_COPY_H

#include <stddef.h>
#include <stdint.h>

/* CUmemorytype */
enum { CUDA_COPY_HOST = 1, CUDA_COPY_DEVICE = 2, CUDA_COPY_ARRAY = 3, CUDA_COPY_UNIFIED = 4 };

struct cuda_copy2d {
	size_t src_x, src_y;
	int src_type;
	const void *src_host;
	unsigned long long src_dev;
	void *src_array;
	size_t src_pitch;
	size_t dst_x, dst_y;
	int dst_type;
	void *dst_host;
	unsigned long long dst_dev;
	void *dst_array;
	size_t dst_pitch;
	size_t width, height;
};

struct cuda_copy3d {
	size_t src_x, src_y, src_z, src_lod;
	int src_type;
	const void *src_host;
	unsigned long long src_dev;
	void *src_array, *reserved0;
	size_t src_pitch, src_height;
	size_t dst_x, dst_y, dst_z, dst_lod;
	int dst_type;
	void *dst_host;
	unsigned long long dst_dev;
	void *dst_array, *reserved1;
	size_t dst_pitch, dst_height;
	size_t width, height, depth;
};

#endif
