// Does compute-sanitizer racecheck order a ring refill after an mbarrier arrive / wait?
// Warp 1 (producer) fills slot s of a 2-slot ring, arrives on full[s]; warp 0 (consumer) waits on
// full[s], reads the slot, arrives on empty[s]; the producer waits on empty[s] before refilling.
// MODE 0: plain st.shared refills; MODE 1: cp.async refills (cp.async.mbarrier.arrive.noinc).
#include <cstdio>
#include <cstdint>
__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void init(uint64_t* b, int n) { asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(sa(b)), "r"(n)); }
__device__ __forceinline__ void arrive(uint64_t* b) { asm volatile("{ .reg .b64 st; mbarrier.arrive.shared.b64 st, [%0]; }" :: "r"(sa(b))); }
__device__ __forceinline__ void wait(uint64_t* b, int ph) {
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared.b64 p, [%0], %1; @!p bra W; }" :: "r"(sa(b)), "r"(ph));
}
template <int MODE>
__global__ void ring(const int* g, int* out, int rounds) {
  __shared__ alignas(16) int slot[2][32 * 4];
  __shared__ uint64_t full[2], empty[2];
  int w = threadIdx.x / 32, l = threadIdx.x % 32;
  if (threadIdx.x == 0) { for (int s = 0; s < 2; s++) { init(&full[s], 32); init(&empty[s], 1); } asm volatile("fence.mbarrier_init.release.cluster;"); }
  __syncthreads();
  int acc = 0;
  for (int r = 0; r < rounds; r++) {
    int s = r % 2, ph = (r / 2) & 1;
    if (w == 1) {
      if (r >= 2) wait(&empty[s], ph ^ 1);
      if (MODE == 0) {
        for (int j = 0; j < 4; j++) slot[s][l * 4 + j] = g[r * 128 + l * 4 + j];
        arrive(&full[s]);
      } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(sa(&slot[s][l * 4])), "l"(g + r * 128 + l * 4));
        asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(sa(&full[s])));
      }
    } else {
      wait(&full[s], ph);
      acc += slot[s][l] + slot[s][64 + l];
      __syncwarp();
      if (l == 0) arrive(&empty[s]);
    }
  }
  if (w == 0) out[l] = acc;
}
int main() {
  int rounds = 8, *g, *o;
  cudaMalloc(&g, rounds * 128 * 4); cudaMalloc(&o, 128);
  cudaMemset(g, 1, rounds * 128 * 4);
  ring<0><<<1, 64>>>(g, o, rounds); cudaDeviceSynchronize();
  ring<1><<<1, 64>>>(g, o, rounds); printf("done: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
