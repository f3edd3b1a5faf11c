import type { Host, SshConfigAliasView } from '../../../shared/model/host';
import type { PromptRequestView } from '../../../shared/model/prompt';
import type { Inventory } from '../../../shared/model/inventory';
import { ClusterInventorySchema, type ClusterInventory } from '../../../shared/model/cluster';
import twoNodeClusterJson from '../../../../tests/fixtures/slurm/two-nodes-accounting.cluster.json';
import oneNodeClusterJson from '../../../../tests/fixtures/slurm/one-node.cluster.json';
import type { Trial } from '../../../shared/study/study';

// Values from the real H200 capture in tests/fixtures/nvidia-smi/h200-1gpu.
export const H200_INVENTORY: Inventory = {
  hostId: 'host-1',
  collectedAt: '2025-06-01T12:00:00.000Z',
  hostname: 'h200-box',
  simulated: false,
  gpuStatus: 'ok',
  gpuMessage: null,
  gpus: [
    {
      index: 0,
      name: 'NVIDIA H200',
      uuid: 'GPU-7a83c607-3a4d-9c92-985a-881af537acf6',
      memoryTotalMiB: 143771,
      memoryUsedMiB: 0,
      memoryFreeMiB: 143156,
      utilizationPct: 0,
      temperatureC: 35,
      powerDrawW: 120.68,
      powerLimitW: 700,
      driverVersion: '580.159.04',
      computeCapability: '9.0',
      pciBusId: '00000000:00:06.0',
      maxSmClockMHz: 1980,
    },
  ],
  gpuProcesses: [],
  driverVersion: '580.159.04',
  cudaVersion: '13.0',
  os: { name: 'Ubuntu 24.04.2 LTS', kernel: '6.8.0-60-generic', arch: 'x86_64' },
  cpuCount: 16,
  memoryTotalMiB: 128000,
  python: { version: '3.12.3' },
  tools: { uv: { present: true, version: '0.7.8' }, pip: { present: true, version: '24.0' }, docker: { present: false, version: null } },
  disk: { path: '/home/ml', freeMiB: 512000, totalMiB: 1024000 },
};

/**
 * Clusters as the core's parser read them from real captures of the Slurm test cluster (tests/fixtures/slurm/README.md),
 * for host `host-1`: two nodes with 2 × fake GPUs, gpu2 drained, accounting on; and one node, accounting off.
 */
export const TWO_NODE_CLUSTER: ClusterInventory = ClusterInventorySchema.parse(twoNodeClusterJson);
export const ONE_NODE_CLUSTER: ClusterInventory = ClusterInventorySchema.parse(oneNodeClusterJson);

export function makeHost(overrides: Partial<Host> = {}): Host {
  return {
    id: 'host-1',
    kind: 'ssh',
    label: 'h200-lab',
    alias: null,
    address: 'gpu-1.lab',
    port: 22,
    user: 'ml',
    identityFile: '~/.ssh/id_ed25519',
    proxyJump: null,
    hasSavedPassword: false,
    createdAt: '2025-06-01T11:00:00.000Z',
    updatedAt: '2025-06-01T11:00:00.000Z',
    ...overrides,
  };
}

export const UNKNOWN_KEY_DETAILS = {
  host: 'gpu-1.lab',
  port: 22,
  keyType: 'ssh-ed25519',
  fingerprint: 'SHA256:2fjS0qTq7Xw9y6qzN0R6lJ8m9ZkS8q0mEw1nXcR6yPc',
};

/** As the core reports a key it has not seen, for the target or for a jump host on the way. */
export const UNKNOWN_JUMP_KEY_DETAILS = {
  host: 'bastion.lab',
  port: 2222,
  keyType: 'ssh-ed25519',
  fingerprint: 'SHA256:Jq3mX0sVv1cHk9aT7yL2pQ4rW8nB5dE6fG1hI2jK3lM',
  role: 'jump',
  alias: 'bastion',
};

export const CHANGED_KEY_DETAILS = {
  host: 'gpu-1.lab',
  port: 22,
  keyType: 'ssh-ed25519',
  fingerprint: 'SHA256:nEwKeY0sVv1cHk9aT7yL2pQ4rW8nB5dE6fG1hI2x7Qz',
  expectedFingerprint: 'SHA256:2fjS0qTq7Xw9y6qzN0R6lJ8m9ZkS8q0mEw1nXcR6yPc',
  role: 'target',
};

export const SSH_CONFIG_ALIASES: SshConfigAliasView[] = [
  { alias: 'bastion', hostName: 'bastion.lab', user: 'ops', port: 2222, proxyJump: null },
  { alias: 'h200', hostName: '10.0.0.11', user: 'ml', port: null, proxyJump: 'bastion' },
  { alias: 'a100', hostName: '10.0.0.12', user: null, port: 2200, proxyJump: 'bastion' },
];

export function makePrompt(overrides: Partial<PromptRequestView> = {}): PromptRequestView {
  return {
    requestId: 'req-1',
    hostId: 'host-1',
    kind: 'passphrase',
    title: 'Passphrase for ~/.ssh/id_ed25519',
    message: 'Enter the passphrase of key ~/.ssh/id_ed25519 to log in to ml@gpu-1.lab:22.',
    prompts: [{ text: 'Passphrase:', echo: false }],
    allowRemember: true,
    expiresAt: null,
    ...overrides,
  };
}

/** A trial of a Qwen3-8B vLLM 0.11.0 server, finished; each test sets what it looks at. */
export function makeTrial(over: Partial<Trial> & Pick<Trial, 'id'>): Trial {
  return {
    stageId: 'engine',
    candidateId: over.id,
    label: over.id,
    engine: 'vllm',
    version: '0.11.0',
    mode: 'env',
    config: { model: 'Qwen/Qwen3-8B', extraArgs: [], env: {} },
    serverKey: over.id,
    command: 'vllm serve Qwen/Qwen3-8B',
    workloadId: 'sharegpt-c4',
    repeat: 1,
    status: 'done',
    ...over,
  };
}
