// SPDX-License-Identifier: MIT
/* Our own CUDA declarations (plugin/base/cuda_api.h) agree with NVIDIA's cuda.h on every
 * size, offset and constant both define: types, checkpoint argument layouts, states, errors. */
#include <string.h>

#include "cuda-abi.h"
#include "tap.h"

int main(void)
{
	int n = 0, i;

	while (cs_abi_ours[n].name)
		n++;
	tap_plan(n + 1);
	tap_diag("comparing against cuda.h of CUDA %d", cs_abi_cuda_version);
	tap_ok(cs_abi_cuda_version >= 12080, "cuda.h has the checkpoint API (CUDA %d)", cs_abi_cuda_version);
	for (i = 0; i < n; i++)
		tap_ok(!strcmp(cs_abi_ours[i].name, cs_abi_cuda_h[i].name) &&
			       cs_abi_ours[i].value == cs_abi_cuda_h[i].value,
		       "%s: ours %ld, cuda.h %ld", cs_abi_ours[i].name, cs_abi_ours[i].value, cs_abi_cuda_h[i].value);
	return tap_done();
}
