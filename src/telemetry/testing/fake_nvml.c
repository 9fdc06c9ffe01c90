/* A stand-in libnvidia-ml for servebench's tests: a real shared library, opened
 * with dlopen exactly as the driver's, exporting the NVML entry points the NVML
 * sampler calls (documented signatures of nvml.h) with known values. Not NVML.
 * Environment (read at nvmlInit_v2):
 *   FAKE_NVML_POWER_MW  comma list of board power per GPU in mW (default 300000,400000)
 *   FAKE_NVML_INIT_RC   return code of nvmlInit_v2 (default 0)
 *   FAKE_NVML_MIG       1 = MIG enabled on every GPU
 * The energy counter grows at exactly the configured power from a fixed origin,
 * and the instant-power field reads the power + 10 W, so tests can tell them apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_GPUS 16
static unsigned int g_power_mw[MAX_GPUS];
static unsigned int g_count;
static int g_mig;

typedef union {
  double d;
  unsigned int ui;
  unsigned long ul;
  unsigned long long ull;
  long long sll;
  int si;
  unsigned short us;
} value_t;
typedef struct {
  unsigned int field_id, scope_id;
  long long timestamp, latency;
  int value_type, nvml_return;
  value_t value;
} field_value_t;
typedef struct {
  unsigned int gpu, memory;
} utilization_t;
typedef struct {
  unsigned long long total, free, used;
} memory_t;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int index_of(void* device) {
  long i = (long)device - 1;
  return (i >= 0 && i < (long)g_count) ? (int)i : -1;
}

int nvmlInit_v2(void) {
  const char* rc = getenv("FAKE_NVML_INIT_RC");
  if (rc && atoi(rc) != 0) return atoi(rc);
  const char* p = getenv("FAKE_NVML_POWER_MW");
  char buf[512];
  snprintf(buf, sizeof(buf), "%s", p ? p : "300000,400000");
  g_count = 0;
  for (char* tok = strtok(buf, ","); tok && g_count < MAX_GPUS; tok = strtok(NULL, ",")) {
    g_power_mw[g_count++] = (unsigned int)strtoul(tok, NULL, 10);
  }
  const char* mig = getenv("FAKE_NVML_MIG");
  g_mig = mig && atoi(mig) == 1;
  return 0;
}
int nvmlShutdown(void) { return 0; }
const char* nvmlErrorString(int rc) { return rc == 0 ? "Success" : "Fake NVML error"; }
int nvmlDeviceGetCount_v2(unsigned int* n) {
  *n = g_count;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void** device) {
  if (i >= g_count) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  *device = (void*)(long)(i + 1);
  return 0;
}
int nvmlDeviceGetUUID(void* device, char* uuid, unsigned int length) {
  int i = index_of(device);
  if (i < 0) return 2;
  snprintf(uuid, length, "GPU-fa4e0000-0000-4000-8000-%012d", i);
  return 0;
}
int nvmlDeviceGetName(void* device, char* name, unsigned int length) {
  (void)device;
  snprintf(name, length, "Fake NVML GPU");
  return 0;
}
int nvmlDeviceGetPowerUsage(void* device, unsigned int* mw) {
  int i = index_of(device);
  if (i < 0) return 2;
  *mw = g_power_mw[i];
  return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(void* device, unsigned long long* mj) {
  int i = index_of(device);
  if (i < 0) return 2;
  /* mW × s = mJ: the counter a GPU at constant power would show. */
  *mj = (unsigned long long)(g_power_mw[i] * now_s());
  return 0;
}
int nvmlDeviceGetFieldValues(void* device, int count, field_value_t* values) {
  int i = index_of(device);
  if (i < 0) return 2;
  for (int k = 0; k < count; ++k) {
    if (values[k].field_id == 186) { /* NVML_FI_DEV_POWER_INSTANT */
      values[k].nvml_return = 0;
      values[k].value_type = 1;
      values[k].value.ui = g_power_mw[i] + 10000;
    } else {
      values[k].nvml_return = 3; /* NVML_ERROR_NOT_SUPPORTED */
    }
  }
  return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(void* device, unsigned int* mw) {
  (void)device;
  *mw = 700000;
  return 0;
}
int nvmlDeviceGetMigMode(void* device, unsigned int* current, unsigned int* pending) {
  (void)device;
  *current = *pending = (unsigned int)g_mig;
  return 0;
}
int nvmlDeviceGetTemperature(void* device, int sensor, unsigned int* c) {
  (void)sensor;
  *c = 50 + (unsigned int)index_of(device);
  return 0;
}
int nvmlDeviceGetClockInfo(void* device, int type, unsigned int* mhz) {
  (void)device;
  (void)type;
  *mhz = 1980;
  return 0;
}
int nvmlDeviceGetUtilizationRates(void* device, utilization_t* u) {
  (void)device;
  u->gpu = 90;
  u->memory = 40;
  return 0;
}
int nvmlDeviceGetMemoryInfo(void* device, memory_t* m) {
  (void)device;
  m->total = 141ull << 30;
  m->used = 100ull << 20;
  m->free = m->total - m->used;
  return 0;
}
