/* A stand-in libamd_smi for servebench's tests: a real shared library exporting
 * the amdsmi entry points the amdsmi sampler calls, with known values. Not amdsmi.
 * amdsmi_power_info_t is filled in the ROCm 6.2-and-later layout (u64
 * socket_power, u32 current_socket_power, u32 average_socket_power, ...).
 * Environment (read at amdsmi_init): FAKE_AMDSMI_POWER_W comma list of watts per
 * GPU (default 500,600). The energy counter grows at exactly that power in ticks of
 * 15.3 µJ, as MI300-class parts count. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_GPUS 16
static uint32_t g_power_w[MAX_GPUS];
static uint32_t g_count;
static const float kResolutionUj = 15.3f;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
static int index_of(void* h) {
  long i = (long)h - 100;
  return (i >= 0 && i < (long)g_count) ? (int)i : -1;
}

int amdsmi_init(uint64_t flags) {
  (void)flags;
  const char* p = getenv("FAKE_AMDSMI_POWER_W");
  char buf[512];
  snprintf(buf, sizeof(buf), "%s", p ? p : "500,600");
  g_count = 0;
  for (char* tok = strtok(buf, ","); tok && g_count < MAX_GPUS; tok = strtok(NULL, ",")) {
    g_power_w[g_count++] = (uint32_t)strtoul(tok, NULL, 10);
  }
  return 0;
}
int amdsmi_shut_down(void) { return 0; }
int amdsmi_get_socket_handles(uint32_t* count, void** sockets) {
  if (sockets == NULL) {
    *count = 1;
    return 0;
  }
  sockets[0] = (void*)7;
  *count = 1;
  return 0;
}
int amdsmi_get_processor_handles(void* socket, uint32_t* count, void** procs) {
  (void)socket;
  if (procs == NULL) {
    *count = g_count;
    return 0;
  }
  for (uint32_t i = 0; i < g_count && i < *count; ++i) procs[i] = (void*)(long)(100 + i);
  *count = g_count;
  return 0;
}
int amdsmi_get_gpu_device_uuid(void* h, unsigned int* len, char* uuid) {
  int i = index_of(h);
  if (i < 0) return 1;
  snprintf(uuid, *len, "fa4e0000-0000-4000-8000-a%011d", i);
  return 0;
}
int amdsmi_get_power_info(void* h, void* info) {
  int i = index_of(h);
  if (i < 0) return 1;
  unsigned char* b = (unsigned char*)info;
  memset(b, 0, 192);
  uint64_t socket = g_power_w[i];
  uint32_t current = g_power_w[i], average = 0xFFFF;
  memcpy(b, &socket, 8);
  memcpy(b + 8, &current, 4);
  memcpy(b + 12, &average, 4);
  return 0;
}
int amdsmi_get_energy_count(void* h, uint64_t* acc, float* resolution, uint64_t* ts) {
  int i = index_of(h);
  if (i < 0) return 1;
  double uj = g_power_w[i] * now_s() * 1e6;
  *acc = (uint64_t)(uj / kResolutionUj);
  *resolution = kResolutionUj;
  *ts = (uint64_t)(now_s() * 1e9);
  return 0;
}
typedef struct {
  uint32_t gfx, umc, mm, reserved[13];
} usage_t;
int amdsmi_get_gpu_activity(void* h, usage_t* u) {
  (void)h;
  u->gfx = 88;
  u->umc = 30;
  u->mm = 0;
  return 0;
}
