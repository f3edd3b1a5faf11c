/**
 * The read-only script that inventories a box. It is fixed text (nothing from the user is spliced in) and is fed
 * to `sh -l -s` on stdin, so the login profile's PATH applies (~/bin, ~/.local/bin, module systems). Each fact is
 * printed between `@@servelab:begin NAME` and `@@servelab:end NAME rc=N` lines so that anything the profile prints
 * is ignored, and every command tolerates a missing tool.
 */

export const PROBE_MARKER_PREFIX = '@@servelab:';
/** Printed last: its absence means the script was cut short or never ran in a POSIX shell. */
export const PROBE_DONE_MARKER = `${PROBE_MARKER_PREFIX}done`;

/** The fields asked of `nvidia-smi --query-gpu`, in the order the parser reads them. */
export const GPU_QUERY_FIELDS = [
  'index',
  'name',
  'uuid',
  'memory.total',
  'memory.used',
  'memory.free',
  'utilization.gpu',
  'temperature.gpu',
  'power.draw',
  'power.limit',
  'driver_version',
  'compute_cap',
  'pci.bus_id',
  'clocks.max.sm',
] as const;

export const GPU_APPS_QUERY_FIELDS = ['gpu_uuid', 'pid', 'process_name', 'used_memory'] as const;

/** Seconds each nvidia-smi call may take before it is treated as hung (a wedged driver can block forever). */
export const NVIDIA_SMI_TIMEOUT_SECONDS = 30;

/**
 * `sl_section NAME COMMAND…`: the command's output (stdout and stderr) between markers, its status in `sl_rc`; the
 * parsers split a script's output on these markers. `stdin: 'none'` gives the command no input; 'script' leaves it
 * the script's own (a command that reads what the script was sent with, as sbatch reads a batch script).
 */
export function sectionFunction(stdin: 'none' | 'script'): string {
  return `sl_section() {
  sl_name=$1
  shift
  printf '\\n${PROBE_MARKER_PREFIX}begin %s\\n' "$sl_name"
  "$@"${stdin === 'none' ? ' </dev/null' : ''} 2>&1
  sl_rc=$?
  printf '\\n${PROBE_MARKER_PREFIX}end %s rc=%s\\n' "$sl_name" "$sl_rc"
  return 0
}`;
}

export const PROBE_SCRIPT = `# Servelab inventory probe (read-only).
${sectionFunction('none')}
sl_smi() {
  if command -v timeout >/dev/null 2>&1; then
    timeout ${NVIDIA_SMI_TIMEOUT_SECONDS} nvidia-smi "$@"
  else
    nvidia-smi "$@"
  fi
}
sl_tool() {
  if command -v "$1" >/dev/null 2>&1; then "$@"; else return 127; fi
}
sl_home() { printf '%s\\n' "$HOME"; }
sl_hostname() { hostname 2>/dev/null || uname -n; }
sl_os_release() { cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release; }
sl_cpus() { nproc 2>/dev/null || getconf _NPROCESSORS_ONLN; }
sl_meminfo() { grep '^MemTotal:' /proc/meminfo; }

sl_section home sl_home
sl_section nvidia-smi-path command -v nvidia-smi
if command -v nvidia-smi >/dev/null 2>&1; then
  sl_section gpus sl_smi --query-gpu=${GPU_QUERY_FIELDS.join(',')} --format=csv,noheader,nounits
  if [ "$sl_rc" != 124 ]; then
    sl_section gpu-apps sl_smi --query-compute-apps=${GPU_APPS_QUERY_FIELDS.join(',')} --format=csv,noheader,nounits
    sl_section nvidia-smi sl_smi
    sl_section gpu-topology sl_smi topo -m
  fi
fi
sl_section hostname sl_hostname
sl_section os-release sl_os_release
sl_section kernel uname -sr
sl_section arch uname -m
sl_section cpus sl_cpus
sl_section meminfo sl_meminfo
sl_section python sl_tool python3 --version
sl_section pip sl_tool python3 -m pip --version
sl_section uv sl_tool uv --version
sl_section docker sl_tool docker --version
sl_section disk df -Pk "$HOME"
printf '\\n${PROBE_DONE_MARKER}\\n'
`;
